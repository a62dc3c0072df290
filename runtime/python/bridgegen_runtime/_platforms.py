"""Where a bridged call may be lowered: the check every primitive's lowering makes first."""

from __future__ import annotations

from ._dtypes import Loop


# Qualified name -> why the function has no CUDA kernels (its spec's `[[host_only]]`
# group), filled by `load_ufuncs`, for the lowering error; kept out of the primitive's
# parameters (and so out of every printed jaxpr).
HOST_ONLY_WHY: dict[str, str] = {}


def check_platforms(ctx, name: str, platforms, built, note: str = "") -> None:
    """NotImplementedError, while the call is lowered, for a platform the function does
    not run on (per its spec, with the spec's reason; or for this call's loop: `note`) or
    that this build has no handlers for."""
    for platform in ctx.module_context.platforms:
        if platform not in platforms:
            why = f" for this call ({note})" if note else ""
            if not note and platform == "cuda" and name in HOST_ONLY_WHY:
                why = f" (no CUDA kernels: {HOST_ONLY_WHY[name]})"
            raise NotImplementedError(
                f"{name} is not available on platform '{platform}'{why}; it runs on: {', '.join(platforms)}"
            )
        if platform not in built:
            raise NotImplementedError(
                f"{name} supports '{platform}' but this build has no {platform} kernels "
                f"(built for: {', '.join(built) or 'nothing'}); rebuild it with NVRTC installed "
                "(`pip install nvidia-cuda-nvrtc nvidia-cuda-runtime`, then `bridgegen build <spec> --install`)"
            )


class LoopPlatforms:
    """The platforms a call runs on, by the loop it picks: loops left out of the spec's
    `cuda_loops` have no CUDA kernel, so a call that picks one is lowered for the host
    platforms only, with a note for the lowering error on CUDA."""

    def __init__(self, platforms, loops, cuda_loops=None):
        self.platforms = tuple(platforms)
        device = set(loops) if cuda_loops is None else set(cuda_loops)
        self._host_only = {Loop.parse(s): s for s in loops if s not in device}
        self._cuda_loops = tuple(s for s in loops if s in device)

    def for_call(self, loop) -> tuple[tuple, dict]:
        """(platforms, extra primitive parameters) of a call that picked `loop`."""
        if loop in self._host_only and "cuda" in self.platforms:
            note = f"its loop {self._host_only[loop]} has no CUDA kernel; on cuda it has {', '.join(self._cuda_loops)}"
            return tuple(p for p in self.platforms if p != "cuda"), {"note": note}
        return self.platforms, {}
