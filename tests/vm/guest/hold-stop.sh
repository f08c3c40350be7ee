#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hold-stop.sh FILE   (an ExecStop= of a stand-in GPU unit in the emulated
# server's systemd guest; tests/vm/t-quiesce.sh adds it as a drop-in)
#
# Holds the unit's stop while FILE exists: the unit stays "deactivating"
# (ExecStop running, its main process untouched) until the test removes
# FILE, so the test sees the state it means to catch for as long as it
# needs, however loaded the machine. Then systemd goes on with the stop
# (SIGTERM to the main process). Without FILE it returns at once. The
# unit's TimeoutStopSec bounds the hold if the test never lets go.
set -u
f=${1:?usage: hold-stop.sh FILE}
while [[ -e $f ]]; do
	sleep 0.1
done
exit 0
