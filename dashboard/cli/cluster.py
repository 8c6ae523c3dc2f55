"""Where ``anonset data build`` runs its map over data sets (the world aggregates): in this process, on a local
Dask cluster, or on a running Dask scheduler.

``--scheduler local`` (the default) starts a ``dask.distributed`` ``LocalCluster`` of two worker processes with
one thread each, bound to 127.0.0.1 with no dashboard, so nothing listens beyond loopback and Dask has no IP
address to guess; ``--scheduler tcp://host:port`` uses a running cluster (its workers must see the cache
folder being built at the same path, as on a shared file system); ``--scheduler serial`` runs in this
process.  Every path gives the same files: the work per data set is a pure function of the cache
(:func:`dashboard.core.world.dataset_aggregates`) and results come back in order.
"""
from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator

from dashboard.core.errors import InputError

SERIAL, LOCAL = "serial", "local"
#: The local cluster's shape: the machine's two cores, one single-threaded process each (NumPy work holds the GIL
#: often enough that threads would not add up).
LOCAL_WORKERS, LOCAL_THREADS = 2, 1
CONNECT_TIMEOUT_S = 10

Mapper = Callable[[Callable, list], list]


def _serial(fn: Callable, items: list) -> list:
    return [fn(item) for item in items]


def check_scheduler(value: str) -> str:
    """``serial``, ``local`` or a scheduler address (``tcp://host:port``); an InputError otherwise."""
    value = (value or LOCAL).strip()
    if value in (SERIAL, LOCAL) or value.startswith(("tcp://", "tls://", "inproc://")):
        return value
    raise InputError(f"--scheduler {value!r}: give serial, local or a Dask scheduler address such as tcp://10.0.0.5:8786")


@contextlib.contextmanager
def data_set_mapper(scheduler: str = LOCAL) -> Iterator[Mapper]:
    """A ``mapper(fn, items)`` that runs ``fn`` over ``items`` on ``scheduler`` and returns the results in order."""
    scheduler = check_scheduler(scheduler)
    if scheduler == SERIAL:
        yield _serial
        return
    try:
        import dask
        from distributed import Client, LocalCluster
    except ImportError:
        raise InputError("dask.distributed is not installed (pip install 'dask[distributed]'); "
                         "or build in this process with --scheduler serial") from None
    with contextlib.ExitStack() as stack:
        # a wrong address fails within seconds; workers die with this process
        stack.enter_context(dask.config.set({"distributed.comm.timeouts.connect": f"{CONNECT_TIMEOUT_S}s",
                                             "distributed.worker.daemon": True}))
        clients = []
        if scheduler != LOCAL:  # a running scheduler is reached at once, so a wrong address fails before the build
            try:
                clients.append(stack.enter_context(Client(scheduler, timeout=f"{CONNECT_TIMEOUT_S}s")))
            except (OSError, TimeoutError) as exc:
                raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({type(exc).__name__}); "
                                 "start it, or build in this process with --scheduler serial") from None

        def mapper(fn: Callable, items: list) -> list:
            if not clients:  # the local cluster starts when there is work for it, not while the raw files load
                cluster = stack.enter_context(LocalCluster(
                    n_workers=LOCAL_WORKERS, threads_per_worker=LOCAL_THREADS, processes=True, host="127.0.0.1",
                    dashboard_address=None, silence_logs=logging.ERROR))
                clients.append(stack.enter_context(Client(cluster)))
            client = clients[0]
            return client.gather(client.map(fn, items, pure=False))

        yield mapper


__all__ = ["LOCAL", "SERIAL", "check_scheduler", "data_set_mapper"]
