// AnonSet's partial plotly.js bundle: the core (scatter) plus the trace types the app draws.
//
// Why: Dash's dcc.Graph loads the full plotly.min.js (4.8 MB, every trace type, world calendars); headless
// Chromium here spent 3-5 s parsing and evaluating it before the first map could start, longer than the map
// itself.  This bundle (~3 MB, MapLibre is most of it) evaluates in under a second.  plotly.js documents
// partial bundles built from lib/core + Plotly.register; the esbuild options are plotly.js's own
// (its esbuild-config.js: iife, global Plotly, inlined CSS, es2016), minified.
//
// Rebuild (after a plotly upgrade: keep "plotly.js" in package.json at the version the Python plotly
// package bundles, which tests/server/test_plotly_bundle.py checks):
//     cd assets/plotly && npm install --ignore-scripts && node build.js
// The app serves plotly-anonset.min.js where Dash asks for plotly.js (dashboard/server/routes.py: plotly_bundle);
// every report file embeds plotly-report.min.js (dashboard/reports/_document.py).
'use strict';
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');
const { environmentPlugin } = require('esbuild-plugin-environment');
const InlineCSSPlugin = require('esbuild-plugin-inline-css');

//: The trace types beyond the core's scatter; every figure type in dashboard/ must be here (tested).
const TRACES = ['bar', 'box', 'choroplethmap'];
//: The reports' bundle (plotly-report.min.js, embedded in every report file): their maps are SVG choropleths (a
//: MapLibre worker cannot start in a page opened from file://), so no MapLibre; every report trace type (tested).
const REPORT_TRACES = ['bar', 'box', 'choropleth'];

// Plotly.prewarmMaps(): MapLibre's documented prewarm() (start the shared worker pool before the first map), with
// the worker plotly.js itself points MapLibre at (src/plots/map/map.js: a blob of build/maplibre_worker).  Its
// 0.7-1.8 s start then overlaps the page's wait for the map's figure instead of following it (assets/map_prewarm.js
// calls it on pages with a map).  The pool keeps these workers for every later map of the page.
const PREWARM = [
    "var maplibregl = require('maplibre-gl/dist/maplibre-gl.mjs');",
    "var maplibreWorkerSource = require('plotly.js/build/maplibre_worker');",
    'var prewarmed = false;',
    'Plotly.prewarmMaps = function () {',
    '    if (prewarmed) return false;',
    '    prewarmed = true;',
    "    maplibregl.setWorkerUrl(URL.createObjectURL(new Blob([maplibreWorkerSource], { type: 'text/javascript' })));",
    '    maplibregl.prewarm();',
    '    return true;',
    '};'
];

const version = require('plotly.js/package.json').version;

/** One minified IIFE bundle of the core plus ``traces`` (and extra source lines) as the global Plotly. */
function bundle(outfile, traces, extra, note) {
    const entry = path.join(__dirname, '.entry.js');  // one at a time (the builds are chained)
    fs.writeFileSync(entry, [
        "'use strict';",
        "var Plotly = require('plotly.js/lib/core');",
        'Plotly.register([' + traces.map((t) => `require('plotly.js/lib/${t}')`).join(', ') + ']);',
        ...extra,
        'module.exports = Plotly;',
        ''
    ].join('\n'));
    return esbuild.build({
        entryPoints: [entry],
        outfile: path.join(__dirname, outfile),
        format: 'iife',
        globalName: 'Plotly',
        bundle: true,
        minify: true,
        legalComments: 'eof',
        banner: { js: `/* plotly.js v${version} partial bundle (core + ${traces.join(', ')}${note}), MIT licence, (c) Plotly, Inc. */` },
        plugins: [InlineCSSPlugin(), environmentPlugin({ NODE_DEBUG: false })],
        define: { global: 'window', 'define.amd': 'false' },
        target: 'es2016',
        logLevel: 'info'
    }).finally(() => fs.unlinkSync(entry));
}

bundle('plotly-anonset.min.js', TRACES, PREWARM, '; Plotly.prewarmMaps')
    .then(() => bundle('plotly-report.min.js', REPORT_TRACES, [], ''));
