#!/usr/bin/env python3
"""A real CUDA process for scripts/real-gpu-check: torch holds GPU memory.

    real-gpu-holder.py STATE_FILE GPU GIB

Imports torch, initialises CUDA, allocates GIB GiB on GPU (an NVML index:
CUDA_DEVICE_ORDER=PCI_BUS_ID makes torch number the GPUs as NVML does),
writes every byte, then writes STATE_FILE (JSON) and sleeps until it is
killed, its parent (the check) ends, or 10 minutes pass. STATE_FILE says
what happened:

  state "holding"        CUDA initialised and the memory is held
  state "no_torch"       torch cannot be imported (reason)
  state "no_cuda_build"  torch is a CPU-only build (torch.version.cuda None)
  state "init_failed"    torch has CUDA, but initialising it or allocating
                         failed (reason: the exception)

Exit 0 after the sleep, 3 when torch or its CUDA build is missing, 4 when
CUDA failed: the check reads STATE_FILE, not the exit code, since it kills
the holder while it sleeps.
"""
import json
import os
import sys
import time


def write_state(path, state):
    # Atomically: the check polls the file while this writes it.
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, path)


def main():
    path, gpu, gib = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    state = {"pid": os.getpid(), "python": sys.version.split()[0], "gpu": gpu}
    os.environ.setdefault("CUDA_DEVICE_ORDER", "PCI_BUS_ID")
    try:
        import torch
    except Exception as e:  # ImportError, or a broken install's own error
        write_state(path, {**state, "state": "no_torch",
                           "reason": f"import torch: {type(e).__name__}: {e}"})
        return 3
    state.update(torch_version=str(torch.__version__), torch_cuda=torch.version.cuda)
    if torch.version.cuda is None:
        write_state(path, {**state, "state": "no_cuda_build",
                           "reason": f"torch {torch.__version__} is built without CUDA (CPU only)"})
        return 3
    t0 = time.monotonic()
    try:
        torch.cuda.init()
        state["device_count"] = torch.cuda.device_count()
        state["init_s"] = round(time.monotonic() - t0, 3)
        x = torch.empty(int(gib * 2**30), dtype=torch.uint8, device=f"cuda:{gpu}")
        x.fill_(1)  # touch every page: the memory is really in use
        torch.cuda.synchronize(gpu)
        state.update(device_name=torch.cuda.get_device_name(gpu), bytes=x.numel(),
                     reserved_bytes=torch.cuda.memory_reserved(gpu))
    except Exception as e:  # torch raises RuntimeError and AssertionError alike
        write_state(path, {**state, "state": "init_failed",
                           "init_s": round(time.monotonic() - t0, 3),
                           "reason": f"{type(e).__name__}: {e}"})
        return 4
    state["hold_s"] = round(time.monotonic() - t0, 3)
    write_state(path, {**state, "state": "holding"})
    # Until killed, at most 10 minutes; and not a moment after the check
    # itself is gone (killed with the device call): the GPU is not left held.
    parent, end = os.getppid(), time.monotonic() + 600
    while time.monotonic() < end and os.getppid() == parent:
        time.sleep(0.5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
