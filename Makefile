# SPDX-License-Identifier: GPL-2.0
#
# pcitopo: top-level build. Each directory owns its Makefile; this one only
# dispatches, so that `make`, `make check` and `make test` mean one thing.
#
#   make            module (kmod/) and userspace (lib/, cli/)
#   make module     pcitopo.ko against KDIR (default: the running kernel's build
#                   dir, else the Debian headers scripts/setup installs)
#   make user       libpcitopo, topoctl, the IPMI and platform libraries,
#                   the simulated BMC's ipmi_sim plugin
#   make check      W=1, sparse C=2, checkpatch --strict on the module
#   make test       every test (unit, then the emulated server); prints
#                   "N passed, N failed"
#   make bench      benchmarks (print figures, assert nothing)

export TOPDIR := $(CURDIR)

.PHONY: all module user check test unit-test vm-test bench clean

all: module user

module:
	$(MAKE) -C kmod

user:
	$(MAKE) -C lib
	$(MAKE) -C cli
	$(MAKE) -C daemon
	$(MAKE) -C bmcsim

check:
	$(MAKE) -C kmod check

test:
	tests/run-all

unit-test:
	$(MAKE) -C tests/unit run

vm-test: all
	tests/vm/run-tests

bench: all
	$(MAKE) -C tests/unit bench
	tests/ipmi/bench-ipmi
	tests/ipmi/bench-inband
	tests/vm/run-bench

clean:
	$(MAKE) -C kmod clean
	$(MAKE) -C lib clean
	$(MAKE) -C cli clean
	$(MAKE) -C model clean
	$(MAKE) -C daemon clean
	$(MAKE) -C bmcsim clean
	$(MAKE) -C tests/unit clean
