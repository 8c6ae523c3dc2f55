"""The Dash renderer's protocol, spoken without a browser: callback bodies, outputs, layouts.

Used by the callback tests (``test_deploy``, ``test_fuzz_callbacks``) and by
``benchmarks/load_test.py``, which drive the app's real callbacks over HTTP.
"""
from __future__ import annotations

import json
import re

#: The page router's output (``dash.page_container``): its answer is a page's layout.
ROUTER_OUTPUT = ".._pages_content.children..._pages_store.data.."
#: How a ``dash.Patch`` answer is marked in a callback response.
PATCH_KEY = "__dash_patch_update"


def split_output(output: str) -> tuple[list[dict], bool]:
    """The outputs of a callback from its ``output`` string: ``..a.b...c.d..`` (multi) or ``a.b``."""
    multi = output.startswith("..") and output.endswith("..")
    parts = output[2:-2].split("...") if multi else [output]
    outs = []
    for part in parts:
        ident, prop = part.rsplit(".", 1)
        outs.append({"id": json.loads(ident) if ident.startswith("{") else ident, "property": prop})
    return outs, multi


def _key(ident, prop: str) -> tuple[str, str]:
    ident = json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident
    return ident, prop.split("@", 1)[0]


def _is_wildcard(ident) -> bool:
    return isinstance(ident, dict) and any(isinstance(v, list) for v in ident.values())


def callback_body(dep: dict, state: dict, changed: list[str] | None = None) -> dict:
    """The ``/_dash-update-component`` body the Dash renderer would send for a callback.

    ``dep`` is one entry of ``/_dash-dependencies``; ``state`` maps ``(id, prop)``
    to the current value (a missing key is sent without a value, as the renderer
    sends undefined props); ``changed`` are the ``"id.prop"`` that triggered it
    (empty for an initial call).  Pattern-matching (wildcard) dependencies are sent
    as empty lists.
    """
    outputs, multi = split_output(dep["output"])

    def item(d):
        if _is_wildcard(d["id"]):
            return []
        out = {"id": d["id"], "property": d["property"]}
        key = _key(d["id"], d["property"])
        if key in state:
            out["value"] = state[key]
        return out

    body = {
        "output": dep["output"],
        "outputs": outputs if multi else outputs[0],
        "inputs": [item(d) for d in dep["inputs"]],
        "changedPropIds": list(changed or []),
    }
    if dep.get("state"):
        body["state"] = [item(d) for d in dep["state"]]
    return body


def walk_components(tree, found: dict | None = None) -> dict:
    """``{id: (type, props)}`` of every component with an id in a layout (JSON) tree."""
    found = {} if found is None else found
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            props = node.get("props")
            if isinstance(props, dict) and "type" in node:
                ident = props.get("id")
                if ident is not None:
                    key = json.dumps(ident, sort_keys=True, separators=(",", ":")) if isinstance(ident, dict) else ident
                    found[key] = (node.get("type"), props)
                stack.extend(v for v in props.values() if isinstance(v, (list, dict)))
    return found


def registered_pages() -> list[str]:
    """URL paths of every page in ``dash.page_registry`` (path variables filled with "x")."""
    import dash

    from dashboard.wsgi import app  # noqa: F401 - registers the pages

    paths = set()
    for page in dash.page_registry.values():
        template = page.get("path_template")
        paths.add(re.sub(r"<[^>]+>", "x", template) if template else page["path"])
    return sorted(paths)
