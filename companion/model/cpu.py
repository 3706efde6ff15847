"""Which int8 matrix kernel onnxruntime runs on this CPU, read from the CPU's own CPUID.

The verdicts must not depend on the reader's processor (issue 24), so the audit card and
`citelens doctor` name the kernel family the numbers came from. onnxruntime does not report it;
its MLAS library picks the u8×s8 kernel from CPUID in a fixed order (platform.cpp): AMX, then
AVX-512 VNNI, then AVX-512 (BW), then AVX-VNNI, then AVX2, else SSE. This module reads the same
bits and applies the same order, so the name is an inference from the CPU, not a report from
onnxruntime; whether the operating system enables AVX-512 or AMX state is not checked.

CPUID is read by executing the instruction (a 29-byte function in an executable page), not from
/proc/cpuinfo, because an emulator such as qemu-user shows the host's /proc/cpuinfo while it
emulates another CPU. Where that cannot run (not x86-64, Windows, no executable mappings), the
family is "unknown" or "not x86-64".
"""

from __future__ import annotations

import ctypes
import functools
import mmap
import platform
import sys
from dataclasses import dataclass
from importlib import metadata

__all__ = ["Kernel", "compute_facts", "int8_kernel"]

# push rbx; mov eax, edi; mov ecx, esi; mov r8, rdx; cpuid;
# mov [r8], eax; mov [r8+4], ebx; mov [r8+8], ecx; mov [r8+12], edx; pop rbx; ret
_CPUID_SYSV = bytes.fromhex("53 89f8 89f1 4989d0 0fa2 418900 41895804 41894808 4189500c 5b c3")

# (family, saturates): kernels that add u8·s8 pairs into int16 saturate on 8-bit weights.
_FAMILIES = {
    "amx": False,
    "avx512-vnni": False,
    "avx512": True,
    "avx-vnni": False,
    "avx2": True,
    "sse": False,
}


@dataclass(frozen=True, slots=True)
class Kernel:
    family: str  # amx | avx512-vnni | avx512 | avx-vnni | avx2 | sse | unknown | not x86-64
    saturating_int16: bool | None  # whether this family adds u8·s8 pairs into a saturating int16
    machine: str


def compute_facts() -> dict[str, str]:
    """What the numbers were computed with, for the audit card and `citelens doctor`."""
    try:
        onnxruntime = metadata.version("onnxruntime")
    except metadata.PackageNotFoundError:
        onnxruntime = "not installed"
    kernel = int8_kernel()
    return {"onnxruntime": onnxruntime, "int8_kernel": kernel.family, "machine": kernel.machine}


@functools.cache  # a fact of the CPU: read once per process
def int8_kernel() -> Kernel:
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return Kernel("not x86-64", None, machine)
    regs = _cpuid_reader()
    if regs is None:
        return Kernel("unknown", None, machine)
    family = _family(regs)
    return Kernel(family, _FAMILIES[family], machine)


def _family(cpuid: _Reader) -> str:
    _, _, ecx1, _ = cpuid(1, 0)
    max_leaf = cpuid(0, 0)[0]
    eax7_1 = ebx7 = ecx7 = edx7 = 0
    if max_leaf >= 7:
        eax7, ebx7, ecx7, edx7 = cpuid(7, 0)
        if eax7 >= 1:
            eax7_1 = cpuid(7, 1)[0]
    avx = bool(ecx1 >> 28 & 1)
    avx2 = avx and bool(ebx7 >> 5 & 1)
    avx512bw = avx2 and bool(ebx7 >> 16 & 1) and bool(ebx7 >> 30 & 1)
    if avx512bw and edx7 >> 24 & 1 and edx7 >> 25 & 1:
        return "amx"
    if avx512bw and ecx7 >> 11 & 1:
        return "avx512-vnni"
    if avx512bw:
        return "avx512"
    if avx2 and eax7_1 >> 4 & 1:
        return "avx-vnni"
    return "avx2" if avx2 else "sse"


class _Reader:
    """cpuid(leaf, subleaf) -> (eax, ebx, ecx, edx), over a function in its own executable page."""

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self._page.write(_CPUID_SYSV)
        address = ctypes.addressof(ctypes.c_char.from_buffer(self._page))
        prototype = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint32))
        self._function = prototype(address)

    def __call__(self, leaf: int, subleaf: int) -> tuple[int, int, int, int]:
        out = (ctypes.c_uint32 * 4)()
        self._function(leaf, subleaf, out)
        return out[0], out[1], out[2], out[3]


def _cpuid_reader() -> _Reader | None:
    if sys.platform == "win32":  # another calling convention, and no PROT_EXEC in its mmap
        return None
    try:
        return _Reader()
    except (OSError, ValueError, AttributeError):  # a system that forbids executable mappings
        return None
