#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Slurm on Debian 13 (trixie): t-slurm.sh --kernel deb13. Cases (a)-(i)
# with Debian 13's munge, slurmctld and slurmd 24.11 in the emulated server
# running Debian 13's kernel, root and systemd, and (k): slurmd as Debian
# 13's slurmd.service (Type=notify) with pcitopo's drop-in, its reload and
# its -b restart (tests/vm/t-slurm.sh says what each case checks).
exec "$(dirname "$(readlink -f "$0")")/t-slurm.sh" --kernel deb13
