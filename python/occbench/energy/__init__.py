"""Kernel Tuner's kernel_tuner.energy (the "going green" power-frequency model): not ported; each
function raises NotImplementedError saying what occbench offers instead."""
