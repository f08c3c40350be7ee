#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages on Debian 13 (trixie): t-pkg.sh --kernel deb13. Built,
# linted and their module built by DKMS in Debian 13's root, installed,
# upgraded, removed and purged in the emulated server running Debian 13's
# kernel and its own systemd (tests/pkg/t-pkg.sh says what each check is).
exec "$(dirname "$(readlink -f "$0")")/t-pkg.sh" --kernel deb13
