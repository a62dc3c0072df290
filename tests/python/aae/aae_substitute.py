"""pytest plugin: array-api-extra's own tests, with jax_cupy_bridge.lazy_apply in place of
array_api_extra.lazy_apply (loaded with `-p aae_substitute` before the test modules import
it). Prints how many calls went through ours, so a run that substituted nothing shows."""

import array_api_extra

from jax_cupy_bridge import lazy as _lazy

_calls = 0


def _counted(*args, **kwargs):
    global _calls
    _calls += 1
    return _lazy.lazy_apply(*args, **kwargs)


array_api_extra.lazy_apply = _counted


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"bridgegen lazy_apply calls: {_calls}")
