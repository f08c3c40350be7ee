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
#   make kernels    pcitopo.ko for every kernel of scripts/kernels.list, each
#                   in its release's root (scripts/setup makes them), W=1,
#                   one line a kernel, into build/kmod/KVER/
#                   (scripts/kbuild-matrix)
#   make test       every test (unit, then the emulated server); prints
#                   "N passed, N failed"
#   make bench      benchmarks (print figures, assert nothing)
#   make deb        the Debian packages pcitopo and pcitopo-dkms (the module
#                   through DKMS), built outside the tree into build/deb/
#                   (scripts/mkdeb; DEB_VERSION=V builds version V instead of
#                   VERSION's); then: apt install ./build/deb/pcitopo_*.deb
#                   ./build/deb/pcitopo-dkms_*.deb
#   make install    what `make` built, where the system looks for it (below);
#                   builds nothing: run `make` first (as yourself), then
#                   `make install` (as root). DESTDIR=DIR stages into DIR.
#
# make install [DESTDIR=DIR] [PREFIX=/usr/local] [INSTALL_MOD=1]
#   $(PREFIX)/bin/topoctl, $(PREFIX)/sbin/topod,
#   $(PREFIX)/libexec/pcitopo/pcitopo-boot,
#   $(PREFIX)/share/man/man8/{topoctl,topod}.8,
#   $(PREFIX)/share/man/man5/{topod.conf,pcitopo-platform}.5,
#   $(PREFIX)/share/bash-completion/completions/topoctl,
#   $(PREFIX)/share/pcitopo/platforms/*.conf,
#   UNITDIR/sysinit.target.d/pcitopo.conf (Wants=modprobe@pcitopo.service:
#   loads pcitopo.ko at boot through systemd's modprobe@.service, `modprobe
#   -abq`, quiet on a kernel the module was not built for; modules-load.d
#   logged an error there at every boot).
#   Where systemd, D-Bus, polkit and udev read them, whatever PREFIX:
#   UNITDIR/{topod,pcitopo-boot,pcitopo-metrics}.service and
#   pcitopo-metrics.timer (UNITDIR: systemd.pc's systemdsystemunitdir,
#   /lib/systemd/system on Debian 12, /usr/lib/systemd/system on 13; the
#   paths of topod, pcitopo-boot and topoctl in them follow PREFIX),
#   /usr/share/dbus-1/system.d/org.pcitopo.Topod.conf (DBUSDIR),
#   /usr/share/dbus-1/system-services/org.pcitopo.Topod.service,
#   /usr/share/polkit-1/actions/org.pcitopo.policy (POLKITDIR),
#   /usr/share/polkit-1/rules.d/pcitopo.rules (POLKITRULESDIR: group
#   "pcitopo" may switch without authenticating),
#   /usr/lib/sysusers.d/pcitopo.conf (SYSUSERSDIR: that group; without
#   DESTDIR, systemd-sysusers creates it at once),
#   UDEVDIR/rules.d/90-pcitopo.rules (UDEVDIR: udev.pc's udevdir, /lib/udev
#   or /usr/lib/udev).
#   Slurm (Documentation/slurm.md): $(LIBEXECDIR)/slurm-feature-helper,
#   slurm-reboot-program, slurm-prolog; UNITDIR/slurmd.service.d/pcitopo.conf,
#   pcitopo-slurm-reconfig.{path,service}.
#   INSTALL_MOD=1 also installs pcitopo.ko (built by `make module`) with
#   kbuild's modules_install against KDIR (kmod/Makefile's default):
#   /lib/modules/VERSION/extra/pcitopo.ko, then depmod; DESTDIR is passed as
#   INSTALL_MOD_PATH. Without INSTALL_MOD=1 the module is not installed.
#   (With Debian's headers, which carry no signing key, kbuild's sign-file
#   prints SSL errors and the module is installed unsigned: it loads, with
#   a taint, where module signatures are not enforced.)
#   Afterwards: systemctl daemon-reload; systemctl enable topod
#   pcitopo-boot (pcitopo-boot only with an /etc/pcitopo/profile); a
#   /etc/pcitopo/topod.conf naming the platform (Documentation/topod.md);
#   where node_exporter runs, systemctl enable --now pcitopo-metrics.timer
#   (Prometheus metrics every 30 s; nothing enables it by itself).

export TOPDIR := $(CURDIR)

.PHONY: all module user check kernels test unit-test vm-test bench clean install deb

all: module user

module:
	$(MAKE) -C kmod

user:
	$(MAKE) -C lib
	$(MAKE) -C cli
	$(MAKE) -C daemon
	$(MAKE) -C bmcsim
	$(MAKE) -C slurm BINDIR=$(BINDIR)

check:
	$(MAKE) -C kmod check

kernels:
	scripts/kbuild-matrix

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
	tests/topod/bench-topod
	cli/tests/bench-doctor
	tests/vm/run-bench
	tests/vm/bench-switch

deb:
	scripts/mkdeb $(if $(DEB_VERSION),--version $(DEB_VERSION))

clean:
	$(MAKE) -C kmod clean
	$(MAKE) -C lib clean
	$(MAKE) -C cli clean
	$(MAKE) -C model clean
	$(MAKE) -C daemon clean
	$(MAKE) -C bmcsim clean
	$(MAKE) -C slurm clean
	$(MAKE) -C tests/unit clean

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
LIBEXECDIR ?= $(PREFIX)/libexec/pcitopo
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
PLATFORMDIR ?= $(PREFIX)/share/pcitopo/platforms
# where this system's systemd and udev read units and rules: their
# pkg-config files say (Debian 12: /lib/..., Debian 13: /usr/lib/...)
UNITDIR    ?= $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
DBUSDIR    ?= /usr/share/dbus-1
POLKITDIR  ?= /usr/share/polkit-1/actions
POLKITRULESDIR ?= /usr/share/polkit-1/rules.d
SYSUSERSDIR ?= /usr/lib/sysusers.d
UDEVDIR    ?= $(shell pkg-config --variable=udevdir udev 2>/dev/null || echo /lib/udev)
INSTALL    ?= install
# as kmod/Makefile: the running kernel's build dir, else scripts/kver's headers
KDIR       ?= $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -d "$$d" ]; then echo "$$d"; else \
	$(CURDIR)/scripts/kver --dir 2>/dev/null; fi)

install:
	@for f in cli/topoctl daemon/topod/topod slurm/slurm-prolog; do \
		[ -x $$f ] || { echo "install: no $$f: run make first" >&2; exit 1; }; \
	done
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(PLATFORMDIR) \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(UNITDIR)/sysinit.target.d \
		$(DESTDIR)$(DBUSDIR)/system.d $(DESTDIR)$(DBUSDIR)/system-services \
		$(DESTDIR)$(POLKITDIR) $(DESTDIR)$(POLKITRULESDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(UDEVDIR)/rules.d
	$(INSTALL) -m 0755 cli/topoctl $(DESTDIR)$(BINDIR)/topoctl
	$(INSTALL) -m 0755 daemon/topod/topod $(DESTDIR)$(SBINDIR)/topod
	$(INSTALL) -m 0755 systemd/pcitopo-boot $(DESTDIR)$(LIBEXECDIR)/pcitopo-boot
	$(INSTALL) -m 0644 cli/topoctl.8 $(DESTDIR)$(MANDIR)/man8/topoctl.8
	$(INSTALL) -m 0644 daemon/topod/topod.8 $(DESTDIR)$(MANDIR)/man8/topod.8
	$(INSTALL) -m 0644 daemon/topod/topod.conf.5 $(DESTDIR)$(MANDIR)/man5/topod.conf.5
	$(INSTALL) -m 0644 daemon/platform/pcitopo-platform.5 \
		$(DESTDIR)$(MANDIR)/man5/pcitopo-platform.5
	$(INSTALL) -m 0644 cli/topoctl.bash-completion $(DESTDIR)$(BASHCOMPDIR)/topoctl
	$(INSTALL) -m 0644 platforms/*.conf $(DESTDIR)$(PLATFORMDIR)/
	$(INSTALL) -m 0644 systemd/sysinit-pcitopo.conf \
		$(DESTDIR)$(UNITDIR)/sysinit.target.d/pcitopo.conf
	for u in topod.service pcitopo-boot.service pcitopo-metrics.service \
		pcitopo-metrics.timer; do \
		sed -e 's|/usr/sbin/topod|$(SBINDIR)/topod|' \
		    -e 's|/usr/bin/topoctl|$(BINDIR)/topoctl|' \
		    -e 's|/usr/libexec/pcitopo/|$(LIBEXECDIR)/|' systemd/$$u \
			>$(DESTDIR)$(UNITDIR)/$$u.tmp && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv -f $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	$(INSTALL) -m 0644 dbus/org.pcitopo.Topod.conf $(DESTDIR)$(DBUSDIR)/system.d/
	$(INSTALL) -m 0644 dbus/org.pcitopo.Topod.service $(DESTDIR)$(DBUSDIR)/system-services/
	$(INSTALL) -m 0644 dbus/org.pcitopo.policy $(DESTDIR)$(POLKITDIR)/
	$(INSTALL) -m 0644 dbus/pcitopo.rules $(DESTDIR)$(POLKITRULESDIR)/
	$(INSTALL) -m 0644 systemd/pcitopo.sysusers $(DESTDIR)$(SYSUSERSDIR)/pcitopo.conf
	if [ -z "$(DESTDIR)" ] && command -v systemd-sysusers >/dev/null; then \
		systemd-sysusers $(SYSUSERSDIR)/pcitopo.conf; fi
	$(INSTALL) -m 0644 udev/90-pcitopo.rules $(DESTDIR)$(UDEVDIR)/rules.d/
	for p in slurm-feature-helper slurm-reboot-program slurm-prolog; do \
		$(INSTALL) -m 0755 slurm/$$p $(DESTDIR)$(LIBEXECDIR)/$$p || exit 1; \
	done
	$(INSTALL) -d $(DESTDIR)$(UNITDIR)/slurmd.service.d
	$(INSTALL) -m 0644 systemd/slurmd-pcitopo.conf \
		$(DESTDIR)$(UNITDIR)/slurmd.service.d/pcitopo.conf
	$(INSTALL) -m 0644 systemd/pcitopo-slurm-reconfig.path \
		systemd/pcitopo-slurm-reconfig.service $(DESTDIR)$(UNITDIR)/
ifeq ($(INSTALL_MOD),1)
	@[ -f kmod/pcitopo.ko ] || { echo "install: no kmod/pcitopo.ko: run make module first" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules_install \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(abspath $(DESTDIR)))
endif
