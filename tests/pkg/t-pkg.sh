#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages as an administrator meets them. TAP on stdout.
# Host part: `scripts/mkdeb` builds pcitopo, pcitopo-dkms and pcitopo-slurm (and a second
# set, version VERSION+1, for the upgrade); lintian has no error or warning;
# the packages hold every file they must (dpkg-deb -c), topod.conf is a
# conffile; debian/copyright agrees with every SPDX line
# (copyright-check.py); VERSION, debian/changelog, topoctl -V, topod --version, dkms.conf
# and the MODULE_VERSION of pcitopo.ko built by DKMS from the package's
# /usr/src tree (a private dkms tree: nothing written to /var/lib/dkms's
# modules) agree.
# Guest part (PCITOPO_PKG_GUEST=0 skips it): the emulated server (MUX, balance)
# booted with systemd on an overlay of the host root; apt-get installs the
# three .debs (no network: every dependency is the host's); the module is
# loaded, topod configured and started, topoctl set cascade switches, and its
# commit starts pcitopo-slurm's reload service through the path unit (no
# slurmd runs there: its ExecCondition skips the reload); an upgrade to
# VERSION+1 keeps the edited topod.conf and the committed layout; remove
# stops and unloads everything and keeps the configuration; purge removes it
# and /var/lib/pcitopo. DKMS compiling pcitopo.ko inside the TCG guest takes
# over 6 minutes (measured), so the module DKMS built on the host against
# the same headers is handed to the guest as DKMS's own binaries-only
# tarball (dkms mktarball --binaries-only), at the place the dh_dkms postinst
# looks for one (/usr/share/pcitopo-dkms/pcitopo-VERSION.dkms.tar.gz): the
# guest's postinst loads it (dkms ldtarball: built) and runs dkms install
# (copy, depmod) and modprobe itself. (Seeding /var/lib/dkms instead does not
# work: common.postinst first removes any pcitopo/VERSION it finds there.)
#
# t-pkg.sh --kernel NAME (t-pkg-deb13.sh: deb13): the same for another
# release of scripts/kernels.list whose root is a "system" root: the
# packages built, linted and their module built by DKMS in that release's
# root (Debian 13's dpkg-buildpackage, debhelper, gcc, lintian, blhc, dkms,
# systemd-analyze), and the guest part on that release's own systemd
# (tests/vm/server --kernel NAME --root: its kernel, its userland). The
# checks of the tree itself (copyright, the project's make, a binNMU's
# control file, dkms.conf's kernel range, the postinst where DKMS must not
# build, a second kernel's headers) run in the host's run only.
# shellcheck disable=SC2016 # single-quoted scripts expand in the guest
set -uo pipefail
top=$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")
cd "$top" || exit 1
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
# shellcheck source=scripts/kernels.sh
. "$top/scripts/kernels.sh"
is() { [[ $1 == "$2" ]] && echo 0 || echo 1; }
kname=$(kernels_host)
[[ ${1:-} == --kernel ]] && kname=${2:?usage: t-pkg.sh [--kernel NAME]}
rel=$(kernel_field "$kname" release) || { echo "not ok 1 - t-pkg: no kernel $kname"; exit 1; }
broot=$(kernel_root "$kname")
host=0
[[ $rel == host ]] && host=1
if ((!host)) && [[ $(kernel_field "$kname" root) != system || ! -f $broot/.pcitopo-root ]]; then
	echo "not ok 1 - t-pkg: $kname's release root ($broot) is not a system root made by scripts/setup"
	exit 1
fi
# inr CMD...: CMD where this release's packages are built and checked (the
# host itself, or the release's root: scripts/kernels.sh in_root)
inr() { in_root "$broot" "$@"; }
for c in dpkg-buildpackage dh dh_dkms dkms lintian blhc fakeroot systemd-analyze pkg-config; do
	inr sh -c "command -v $c" >/dev/null ||
		{ echo "not ok 1 - t-pkg: no $c in $broot (scripts/setup installs it)"; exit 1; }
done
V=$(cat VERSION)
V2=$V+1
kver=$(kernel_release "$kname")
# (inside the repository: a release's root sees the repository alone)
out=$top/build/pkg-test$( ((host)) || echo "-$kname")
rm -rf "$out"
mkdir -p "$out"
tmp=$(mktemp -d "$out/tmp.XXXXXX")
say=$( ((host)) || echo " ($kname, $rel's root)")
srv=$top/tests/vm/server
dir=
cleanup() {
	[[ -n $dir && -d $dir ]] && "$srv" stop "$dir" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT

# --- host: build -------------------------------------------------------------
t0=$SECONDS
relarg=()
((host)) || relarg=(--release "$rel")
o=$(scripts/mkdeb --out "$out" "${relarg[@]}" 2>&1)
ok $? "scripts/mkdeb builds pcitopo and pcitopo-dkms $V$say ($((SECONDS - t0)) s)" "$o"
o=$(scripts/mkdeb --out "$out" --version "$V2" "${relarg[@]}" 2>&1)
ok $? "scripts/mkdeb --version $V2 builds the upgrade$say" "$o"
deb=$out/pcitopo_${V}_amd64.deb dkms_deb=$out/pcitopo-dkms_${V}_all.deb
deb2=$out/pcitopo_${V2}_amd64.deb dkms_deb2=$out/pcitopo-dkms_${V2}_all.deb
[[ -f $deb && -f $dkms_deb && -f $deb2 && -f $dkms_deb2 ]] ||
	{ echo "1..$n"; exit 1; }

# package-supports-alternative-init-but-no-init.d-script (info): an
# obsolete tag, removed from lintian in 2.117.0, which Debian 12's 2.116.3
# still emits for a service with no init.d script (topod, pcitopo-boot,
# slurmd's drop-in: systemd-only by design). An override for it is an
# error to Debian 13's lintian (alien-tag), so the packages carry none, and
# a lintian that still knows the tag is told to skip it.
supp=()
[[ -e ${broot%/}/usr/share/lintian/tags/p/package-supports-alternative-init-but-no-init.d-script.tag ]] &&
	supp=(--suppress-tags package-supports-alternative-init-but-no-init.d-script)
lv=$(inr lintian --version 2>/dev/null)
o=$(inr lintian --pedantic -I "${supp[@]}" "$out/pcitopo_${V}_amd64.changes" 2>&1 | grep -v '^running with root')
ok "$(grep -qE '^[EW]: ' <<<"$o" && echo 1 || echo 0)" \
	"$lv --pedantic: no error, no warning" "$o"
ok "$([[ -z $o ]] && echo 0 || echo 1)" "$lv --pedantic -I: nothing at all" "$o"
# The source package (dpkg-source -b of the same tree): nothing either.
# Standards-Version 4.7.2 is checked with Debian 13's lintian, which knows
# that policy; Debian 12's knows none after 4.6.2 and warns
# newer-standards-version, whose own explanation says to upgrade lintian,
# which Debian 12 cannot (bookworm-backports has none). So a lintian whose
# newest policy is older than the one declared is told to skip that tag;
# the source carries no override for it (Debian 13's lintian reports an
# unused override even without -I).
srcd=$tmp/srcpkg/pcitopo-$V
mkdir -p "$srcd"
git ls-files -co --exclude-standard -z | tar --null -T - -cf - 2>/dev/null | tar -C "$srcd" -xf -
o=$(inr sh -c 'cd "$1" && dpkg-source -b "pcitopo-$2"' _ "$tmp/srcpkg" "$V" 2>&1)
ok $? "dpkg-source -b: the source package pcitopo_$V.dsc" "$o"
sv=$(sed -n 's/^Standards-Version: *//p' "$srcd/debian/control")
lp=$(jq -r '(.releases // .)[0].version' "${broot%/}/usr/share/lintian/data/debian-policy/releases.json" 2>/dev/null)
ssupp=()
if [[ -n $lp ]] && dpkg --compare-versions "$lp" lt "$sv"; then
	ssupp=(--suppress-tags newer-standards-version)
	echo "# this lintian knows policy up to $lp, the source declares $sv: newer-standards-version skipped"
fi
o=$(inr lintian --pedantic -I "${ssupp[@]}" "$tmp/srcpkg/pcitopo_$V.dsc" 2>&1 | grep -v '^running with root')
ok "$([[ -z $o ]] && echo 0 || echo 1)" "$lv --pedantic -I of the source package: nothing at all (Standards-Version $sv)" "$o"
# The package build's compiler lines (mkdeb's log of dpkg-buildpackage):
# every one with dpkg-buildflags' hardening flags (blhc: -D_FORTIFY_SOURCE
# from CPPFLAGS, -fstack-protector-strong and -Wformat from CFLAGS,
# -z relro/now from LDFLAGS; --debian: gcc's default PIE), and no -Werror:
# a newer compiler's new warning must not fail a user's build. The
# project's own builds keep it (make -n: the commands make would run).
blog=$out/build-$V.log
o=$(inr blhc --debian --all --line-numbers "$blog" 2>&1)
ok "$([[ $? == 0 && -z $o ]] && echo 0 || echo 1)" \
	"blhc: every compile and link line of the package build has dpkg-buildflags' CPPFLAGS, CFLAGS and LDFLAGS" "$o"
cc=$(grep -E '^(cc|gcc|x86_64-linux-gnu-gcc(-[0-9]+)?) ' "$blog")
o=$(grep -E -- '-Werror( |$)' <<<"$cc")
ok "$([[ -n $cc && -z $o ]] && echo 0 || echo 1)" \
	"the package build: no -Werror on its $(wc -l <<<"$cc") compiler lines" "$o"
if ((host)); then
	o=$(for d in lib cli model daemon slurm; do make -n -B -s -C "$d" 2>/dev/null; done |
		grep -E '^cc .* -c ' | grep -Ev -- '-Werror( |$)')
	ok "$([[ -z $o ]] && echo 0 || echo 1)" "make (lib, cli, model, daemon, slurm): -Werror on every compile, as CI builds" "$o"
	o=$(tests/pkg/copyright-check.py "$top" 2>&1)
	ok $? "debian/copyright names the licence of every file's SPDX line ($(tail -n 1 <<<"$o" | cut -d: -f1))" "$o"
fi

# where this release's systemd and udev read units and rules (debian/rules
# takes them from the same pkg-config files): Debian 12 /lib/..., 13 /usr/lib/...
unitdir=$(inr pkg-config --variable=systemdsystemunitdir systemd)
udevdir=$(inr pkg-config --variable=udevdir udev)
ok "$([[ -n $unitdir && -n $udevdir ]] && echo 0 || echo 1)" \
	"pkg-config: systemd's unit directory $unitdir, udev's $udevdir"
list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/topoctl /usr/sbin/topod /usr/libexec/pcitopo/pcitopo-boot \
	$unitdir/topod.service $unitdir/pcitopo-boot.service \
	$unitdir/pcitopo-metrics.service $unitdir/pcitopo-metrics.timer \
	$udevdir/rules.d/90-pcitopo.rules \
	/usr/share/dbus-1/system.d/org.pcitopo.Topod.conf \
	/usr/share/dbus-1/system-services/org.pcitopo.Topod.service \
	/usr/share/polkit-1/actions/org.pcitopo.policy /usr/share/polkit-1/rules.d/pcitopo.rules \
	/usr/lib/sysusers.d/pcitopo.conf /usr/share/bash-completion/completions/topoctl \
	/usr/share/man/man8/topoctl.8.gz /usr/share/man/man8/topod.8.gz \
	/usr/share/man/man5/topod.conf.5.gz /usr/share/man/man5/pcitopo-platform.5.gz \
	/usr/share/pcitopo/platforms/template.conf /usr/share/doc/pcitopo/topod.md \
	/etc/pcitopo/topod.conf; do
	ok "$(grep -qx "$f" <<<"$list"; echo $?)" "pcitopo holds $f"
done
# the Slurm pieces in a package of their own
slurm_deb=$out/pcitopo-slurm_${V}_amd64.deb
slist=$(dpkg-deb -c "$slurm_deb" 2>&1 | awk '{print $6}' | sed 's|^\./|/|')
miss=
for f in /usr/libexec/pcitopo/slurm-feature-helper /usr/libexec/pcitopo/slurm-reboot-program \
	/usr/libexec/pcitopo/slurm-prolog $unitdir/slurmd.service.d/pcitopo.conf \
	$unitdir/pcitopo-slurm-reconfig.path $unitdir/pcitopo-slurm-reconfig.service; do
	grep -qx "$f" <<<"$slist" || miss+=" $f"
done
ok "$([[ -z $miss ]] && ! grep -qE 'libexec/pcitopo/slurm|slurm.*\.(path|service|conf)$' <<<"$list" && echo 0 || echo 1)" \
	"pcitopo-slurm holds the Slurm programs, slurmd's drop-in and the reload units; pcitopo none of them" \
	"missing:$miss; pcitopo: $(grep slurm <<<"$list")"
ok "$(dpkg-deb -f "$slurm_deb" Depends | grep -q "pcitopo (= $V)"; echo $?)" \
	"pcitopo-slurm depends on pcitopo of its own version" "$(dpkg-deb -f "$slurm_deb" Depends)"
ok "$(dpkg-deb -f "$slurm_deb" Depends | tr ',' '\n' | grep -qx ' *slurm-client'; echo $?)" \
	"pcitopo-slurm depends on slurm-client (the Prolog's scontrol)" "$(dpkg-deb -f "$slurm_deb" Depends)"
# Depends as policy 7.2 says: topoctl needs none of the bus, systemd and
# polkitd (topod's), so they are Recommends, not Depends
dep=$(dpkg-deb -f "$deb" Depends) rec=$(dpkg-deb -f "$deb" Recommends)
# (a clause is a hard dependency on them when each of its alternatives is
# one of them: systemd | systemd-standalone-sysusers | systemd-sysusers,
# the group's sysusers.d for the postinst, is not)
hard=$(tr ',' '\n' <<<"$dep" | while read -r clause; do
	alts=$(tr '|' '\n' <<<"$clause" | sed 's/ *(.*//; s/^ *//; s/ *$//')
	grep -vxqE 'polkitd|systemd|dbus|dbus-system-bus|default-dbus-system-bus|dbus-daemon|dbus-broker' <<<"$alts" ||
		echo "$clause"
done)
ok "$([[ -z $hard ]] && echo 0 || echo 1)" \
	"pcitopo: Depends has neither polkitd, systemd nor a D-Bus system bus (topoctl needs none)" "Depends: $dep; hard: $hard"
ok "$(r=0; for p in polkitd systemd 'default-dbus-system-bus | dbus-system-bus'; do
	tr ',' '\n' <<<"$rec" | sed 's/^ *//' | grep -qxF "$p" || r=1; done; echo $r)" \
	"pcitopo: Recommends polkitd, systemd, default-dbus-system-bus | dbus-system-bus (topod's)" "Recommends: $rec"
# topoctl loads libconfig by the SONAME it was built against (libconfig.so.9
# on Debian 12, .11 on 13); the package must depend on that one's package,
# and on no other libconfig (a hard-coded libconfig9 was uninstallable on
# Debian 13)
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/topoctl >"$tmp/topoctl.bin"
so=$(grep -aoE 'libconfig\.so\.[0-9]+' "$tmp/topoctl.bin" | sort -u)
cdeps=$(tr ',|' '\n\n' <<<"$dep" | sed 's/ *(.*//; s/^ *//' | grep -E '^libconfig[0-9]' | sort -u)
ok "$([[ $(wc -l <<<"$so") == 1 && -n $so && $cdeps == "${so/.so./}" ]] && echo 0 || echo 1)" \
	"topoctl loads $so; pcitopo depends on its package, ${so/.so./}, and no other libconfig" "Depends' libconfig: $cdeps"
if ((host)); then
	# a binNMU of pcitopo (version V+b1; pcitopo-dkms, Architecture: all, is
	# not rebuilt and stays V): its Recommends must still name an installable
	# pcitopo-dkms. dpkg-gencontrol with a binNMU entry on top of the changelog
	mkdir -p "$tmp/bnmu/debian" "$tmp/bnmu/pkg"
	cp debian/control "$tmp/bnmu/debian/"
	{
		printf 'pcitopo (%s+b1) unstable; urgency=low, binary-only=yes\n\n' "$V"
		printf '  * Binary-only non-maintainer upload for amd64 (t-pkg).\n\n'
		printf ' -- t-pkg <t-pkg@localhost>  %s\n\n' "$(date -R)"
		cat debian/changelog
	} >"$tmp/bnmu/debian/changelog"
	bctl=$(cd "$tmp/bnmu" && dpkg-gencontrol -ppcitopo -Ppkg -O 2>/dev/null)
	bver=$(sed -n 's/^Version: //p' <<<"$bctl")
	brel=$(sed -n 's/^Recommends: //p' <<<"$bctl" | tr ',' '\n' | sed -n 's/^ *pcitopo-dkms (\(.*\))$/\1/p')
	bop=${brel%% *} bv=${brel#* }
	case $bop in '=') bop=eq ;; '>=') bop=ge ;; '<=') bop=le ;; '>>') bop=gt ;; '<<') bop=lt ;; esac
	ok "$([[ $bver == "$V+b1" && -n $brel ]] && dpkg --compare-versions "$V" "$bop" "$bv" && echo 0 || echo 1)" \
		"a binNMU (pcitopo $V+b1): its Recommends on pcitopo-dkms ($brel) takes pcitopo-dkms $V, which a binNMU does not rebuild" \
		"$(grep -E '^(Version|Recommends):' <<<"$bctl")"
fi
dpkg-deb -e "$deb" "$tmp/ctl"
ok "$(is "$(cat "$tmp/ctl/conffiles")" /etc/pcitopo/topod.conf)" \
	"DEBIAN/conffiles: /etc/pcitopo/topod.conf" "$(cat "$tmp/ctl/conffiles")"
ok "$(grep -q "helper enable 'topod.service'" "$tmp/ctl/postinst" &&
	grep -q "helper enable 'pcitopo-boot.service'" "$tmp/ctl/postinst" &&
	grep -q "debian-installed 'pcitopo-metrics.timer'" "$tmp/ctl/postinst" &&
	! grep -q 'start.*pcitopo-boot' "$tmp/ctl/postinst"; echo $?)" \
	"postinst enables topod and pcitopo-boot as their units say, never runs pcitopo-boot"
# The postinst as dpkg runs it on a running system (configure), every
# command it calls a stub that records its arguments: in a private mount
# namespace whose /run has udev's and systemd's directories; nothing real
# is enabled, started or triggered. An "add" replayed on the GPUs and
# bridges would re-run every other package's add rules on them, and
# pcitopo's rule needs none (Documentation/topod.md, "udev").
stubs=$tmp/stubs
mkdir -p "$stubs"
for c in udevadm deb-systemd-helper deb-systemd-invoke systemctl systemd-sysusers topod; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$c" "$tmp/calls" >"$stubs/$c"
	chmod +x "$stubs/$c"
done
: >"$tmp/calls"
o=$(unshare -m --propagation private sh -c '
	mount -t tmpfs tmpfs /run && mkdir -p /run/udev /run/systemd/system &&
	PATH=$1:/usr/bin:/bin sh "$2" configure' _ "$stubs" "$tmp/ctl/postinst" 2>&1)
rc=$?
calls=$(cat "$tmp/calls")
ok "$([[ $rc == 0 ]] && grep -qx 'udevadm control --reload-rules' <<<"$calls" &&
	! grep -q '^udevadm trigger' <<<"$calls" && echo 0 || echo 1)" \
	"postinst configure: udev's rules reloaded, no udevadm trigger (no add replayed on any device)" \
	"rc=$rc $o
$(grep '^udevadm' <<<"$calls")"
dlist=$(dpkg-deb -c "$dkms_deb" | awk '{print $6}' | sed 's|^\./|/|')
s=/usr/src/pcitopo-$V
miss=
for f in $s/dkms.conf $s/VERSION $s/kmod/Kbuild $s/kmod/Makefile \
	$(git ls-files kmod | grep -vx kmod/scripts/check | sed "s|^|$s/|") \
	$(git ls-files 'core/*.c' 'core/*.h' | sed "s|^|$s/|") \
	$s/include/uapi/linux/pcitopo.h $unitdir/sysinit.target.d/pcitopo.conf; do
	grep -qx "$f" <<<"$dlist" || miss+=" $f"
done
ok "$([[ -z $miss ]] && ! grep -q 'modules-load\.d' <<<"$dlist" && echo 0 || echo 1)" \
	"pcitopo-dkms holds dkms.conf, every file of kmod/ Kbuild reads (its conftest too) and of core/, the uapi header, sysinit.target.d/pcitopo.conf (no modules-load.d)" "missing:$miss"

# versions
dpkg-deb -x "$deb" "$tmp/root"
dpkg-deb -x "$dkms_deb" "$tmp/root"

# The units' exposure as systemd-analyze security scores it (offline: the
# unit files alone). pcitopo-boot needs a strict subset of topod's access
# (the bus and one state file: no capability, device, /sys write or
# network), so topod.service's score, each of whose exceptions its unit
# and topod.md justify, is the threshold it must not exceed.
expo() {
	inr systemd-analyze security --offline=yes --no-pager "$1" 2>&1 |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p'
}
eb=$(expo "$tmp/root/$unitdir/pcitopo-boot.service")
et=$(expo "$tmp/root/$unitdir/topod.service")
ok "$([[ -n $eb && -n $et ]] && awk -v b="$eb" -v t="$et" 'BEGIN { exit !(b <= t) }' && echo 0 || echo 1)" \
	"systemd-analyze security: pcitopo-boot.service $eb, no worse than topod.service's $et" \
	"$(inr systemd-analyze security --offline=yes --no-pager "$tmp/root/$unitdir/pcitopo-boot.service" 2>&1 | grep -E '✗|Overall')"
cv=$(dpkg-parsechangelog -l debian/changelog -SVersion)
# (run where they were built: Debian 13's binaries need its libraries)
tv=$(inr "$tmp/root/usr/bin/topoctl" -V 2>&1)
dv=$(inr "$tmp/root/usr/sbin/topod" --version 2>&1)
kv=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$tmp/root$s/dkms.conf")
ok "$(is "$cv|$tv|$dv|$kv" "$V|topoctl $V (pcitopo genl version 1)|topod $V|$V")" \
	"one version $V: debian/changelog, topoctl -V, topod --version, dkms.conf" "$cv|$tv|$dv|$kv"
ok "$(is "$(sed -n 's/^BUILT_MODULE_NAME\[0\]=//p;s/^PACKAGE_NAME=//p' "$tmp/root$s/dkms.conf" | tr -d '"' | tr '\n' ' ')" \
	"pcitopo \$PACKAGE_NAME ")" "dkms.conf: PACKAGE_NAME pcitopo, BUILT_MODULE_NAME from it"
ok "$(grep -qx 'AUTOINSTALL="yes"' "$tmp/root$s/dkms.conf"; echo $?)" "dkms.conf: AUTOINSTALL=yes"
# DKMS builds the package's tree (private dkms tree: /var/lib/dkms's modules untouched)
mkdir -p "$out/dkms" "$out/prebuilt"
for v in "$V" "$V2"; do
	x=$tmp/src-$v
	mkdir -p "$x"
	dpkg-deb -x "$out/pcitopo-dkms_${v}_all.deb" "$x"
	t0=$SECONDS
	o=$(inr dkms build -m pcitopo -v "$v" -k "$kver" --dkmstree "$out/dkms" --sourcetree "$x/usr/src" 2>&1)
	rc=$?
	# (compressed as the kernel's modules are: Debian 13's DKMS makes .ko.xz)
	ko=$(compgen -G "$out/dkms/pcitopo/$v/$kver/x86_64/module/pcitopo.ko*" | head -n 1)
	ok "$([[ $rc == 0 && -f $ko && $(modinfo -F version "$ko") == "$v" &&
		$(modinfo -F vermagic "$ko") == "$kver "* ]] && echo 0 || echo 1)" \
		"dkms build -k $kver of pcitopo-dkms $v: pcitopo.ko, MODULE_VERSION $v ($((SECONDS - t0)) s)" "$o"
	o=$(inr dkms mktarball -m pcitopo -v "$v" -k "$kver" --binaries-only --dkmstree "$out/dkms" \
		--sourcetree "$x/usr/src" --archive "$out/prebuilt/pcitopo-$v.dkms.tar.gz" 2>&1)
	rc=$?
	# (the listing first: grep -q quits at its match, and under pipefail
	# the SIGPIPE of a tar still writing would fail the test)
	tl=$(tar -tzf "$out/prebuilt/pcitopo-$v.dkms.tar.gz" 2>&1)
	ok "$([[ $rc == 0 ]] && grep -qx "./dkms_main_tree/$kver/x86_64/module/${ko##*/}" <<<"$tl" &&
		echo 0 || echo 1)" \
		"dkms mktarball --binaries-only of pcitopo/$v (the guest's prebuilt module)" "$o"
done

# (the tree's dkms.conf and the host's DKMS: the host's run only)
if ((host)); then
	# A second kernel's headers (the cloud flavour, scripts/setup): what DKMS's
	# kernel hook (/etc/kernel/header_postinst.d/dkms) runs when they arrive,
	# `dkms autoinstall -k KVER`, builds and installs the newest AUTOINSTALL
	# module of the tree for it. In a private mount namespace whose
	# /lib/modules/KVER is a scratch copy (its build link only), so that
	# neither the module nor depmod's files land in the host's /lib/modules.
	k2=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-cloud-amd64' -printf '%f\n' | sort -V | tail -n 1)
	k2=${k2#linux-headers-}
	if [[ -z $k2 || ! -d /lib/modules/$k2 ]]; then
		ok 1 "a second kernel's headers (linux-headers-cloud-amd64: scripts/setup)" "none in /usr/src"
	else
		m2=$tmp/modules-$k2
		mkdir -p "$m2"
		cp -P /lib/modules/"$k2"/build "$m2/"
		t0=$SECONDS
		o=$(unshare -m --propagation private sh -c '
			mount --bind "$1" "/lib/modules/$2" &&
			dkms autoinstall -k "$2" --dkmstree "$3" --sourcetree "$4" &&
			f=/lib/modules/$2/updates/dkms/pcitopo.ko &&
			echo "$(modinfo -F version "$f") $(modinfo -F vermagic "$f" | cut -d" " -f1)" &&
			grep -c "updates/dkms/pcitopo.ko:" "/lib/modules/$2/modules.dep"' \
			_ "$m2" "$k2" "$out/dkms" "$tmp/src-$V2/usr/src" 2>&1)
		ok "$([[ $(tail -n 2 <<<"$o" | tr '\n' ' ') == "$V2 $k2 1 " ]] && echo 0 || echo 1)" \
			"headers of a second kernel ($k2): dkms autoinstall builds and installs pcitopo $V2 for it, depmod lists it ($((SECONDS - t0)) s)" "$o"
		ok "$([[ ! -e /lib/modules/$k2/updates && ! -e /lib/modules/$k2/modules.dep ]] && echo 0 || echo 1)" \
			"the host's /lib/modules/$k2 untouched"
	fi

	# The kernel range, 5.10 to 7.2: dkms.conf's BUILD_EXCLUSIVE_KERNEL, as
	# dkms tests it (bash =~ against the release), takes every kernel of
	# scripts/kernels.list (each one's release by scripts/kver's rule in its
	# root, scripts/kernels.sh) and refuses those outside.
	# shellcheck source=scripts/kernels.sh
	. "$top/scripts/kernels.sh"
	bek=$(bash -c '. "$1"; echo "$BUILD_EXCLUSIVE_KERNEL"' _ "$tmp/root$s/dkms.conf")
	for kn in $(kernels_names); do
		if ! kr=$(kernel_release "$kn" 2>&1); then
			skip "dkms.conf takes $kn" "$kr"
			continue
		fi
		ok "$([[ $kr =~ $bek ]] && echo 0 || echo 1)" "dkms.conf's BUILD_EXCLUSIVE_KERNEL takes $kn ($kr)" "$bek"
	done
	bad=
	for kr in 5.4.0-150-amd64 5.9.16-1 7.3.0-1-amd64 7.10.0-1-amd64 8.0.0-1-amd64; do
		[[ $kr =~ $bek ]] && bad+=" $kr"
	done
	ok "$([[ -n $bek && -z $bad ]] && echo 0 || echo 1)" \
		"dkms.conf's BUILD_EXCLUSIVE_KERNEL refuses 5.4, 5.9, 7.3, 7.10, 8.0 ($bek)" "takes:$bad"

	# pcitopo-dkms's postinst, as dpkg runs it, where DKMS must not build: in a
	# private mount namespace with a scratch /var/lib/dkms (DKMS's tree),
	# /usr/src/pcitopo-V (the package's tree, on an overlay of /usr/src) and
	# a /lib/modules of this test's kernels only. The running kernel
	# ($(uname -r)) has no directory there, so common.postinst (dkms's)
	# builds for every kernel in it, as on a machine whose kernels are all
	# outside the range. A.: two kernels outside the range, with "headers"
	# that fail any build: DKMS must skip them (dkms build exits 77 with its
	# reason, which common.postinst takes for "Skipped.") and the postinst
	# succeed. B.: the running kernel's directory without its headers (no
	# build/): the same, "skipped since the kernel headers ... not installed".
	dkms_postinst() {	# dkms_postinst KERNELDIRS...: KVER or KVER:noheaders
		local m=$tmp/pi-modules u=$tmp/pi-up w=$tmp/pi-work k
		rm -rf "$m" "$u" "$w" "$tmp/pi-fake"
		mkdir -p "$m" "$u" "$w" "$tmp/pi-fake/include"
		# a kernel "build" dir that kbuild cannot use: a real build fails at once
		printf 'all modules:\n\t@echo "t-pkg: no kbuild here" >&2; false\n' >"$tmp/pi-fake/Makefile"
		for k; do
			mkdir -p "$m/${k%%:*}"
			[[ $k == *:noheaders ]] || ln -s "$tmp/pi-fake" "$m/${k%%:*}/build"
		done
		unshare -m --propagation private sh -c '
			set -e
			mount -t tmpfs tmpfs /var/lib/dkms
			mount --bind "$1" /lib/modules
			mount -t overlay overlay -o lowerdir=/usr/src,upperdir="$2",workdir="$3" /usr/src
			cp -a "$4/usr/src/pcitopo-$5" /usr/src/
			sh "$6" configure
			echo "status=$(dkms status pcitopo | tr -d , | tr "\n" " ")"' \
			_ "$m" "$u" "$w" "$tmp/root" "$V" "$tmp/dctl/postinst" 2>&1
	}
	dpkg-deb -e "$dkms_deb" "$tmp/dctl"
	o=$(dkms_postinst 5.4.0-150-amd64 7.3.0-1-amd64)
	rc=$?
	ok "$([[ $rc == 0 && $(grep -c 'BUILD_EXCLUSIVE directive which does not match this kernel' <<<"$o") == 2 &&
		$(grep -cx 'Skipped.' <<<"$o") == 2 && $o != *"no kbuild here"* &&
		$(sed -n 's/^status=//p' <<<"$o") == "pcitopo/$V: added " ]] && echo 0 || echo 1)" \
		"pcitopo-dkms's postinst, kernels 5.4 and 7.3 only: DKMS skips both with its reason, the postinst succeeds" "rc=$rc
	$o"
	o=$(dkms_postinst "$(uname -r):noheaders")
	rc=$?
	ok "$([[ $rc == 0 && $o == *"kernel headers for this kernel do not seem to be installed"* &&
		$(sed -n 's/^status=//p' <<<"$o") == "pcitopo/$V: added " ]] && echo 0 || echo 1)" \
		"pcitopo-dkms's postinst, the running kernel without headers: the build skipped, the postinst succeeds" "rc=$rc
	$o"
fi

# --- guest ---------------------------------------------------------------------
if [[ ${PCITOPO_PKG_GUEST:-1} == 0 ]]; then
	echo "# guest part skipped (PCITOPO_PKG_GUEST=0)"
	echo "1..$n"; ((failed == 0)); exit
fi
ok "$(inr dpkg-query -W -f='${db:Status-Status}' pcitopo pcitopo-dkms 2>/dev/null | grep -q installed && echo 1 || echo 0)" \
	"the guest's root (the host's, or $rel's) has no pcitopo package installed"
dir=$(mktemp -d /tmp/pcitopo-pkg.XXXXXX)
rmdir "$dir"
t0=$SECONDS
groot=()
((host)) || groot=(--kernel "$kname" --root)
o=$("$srv" start "$dir" --method mux --layout balance --timeout 400 --init systemd \
	--setup "$top/tests/vm/guest/pkg-setup.sh" "${groot[@]}" 2>&1)
up=$?
ok $up "emulated server up with systemd, MUX at balance$say ($((SECONDS - t0)) s)" "$o"
g() {	# g TIMEOUT SCRIPT: run in the guest, key=value lines back
	# no guest, no waiting: each check after a failed start fails at once
	((up == 0)) || { echo "no guest: the emulated server did not start"; return 1; }
	"$srv" run "$dir" --timeout "$1" -- env V="$V" V2="$V2" K="$kver" OUT="$out" bash -c "$2" 2>&1
}
get() { sed -n "s/^$1=//p" <<<"$r" | head -n 1; }
# the prebuilt modules where the dh_dkms postinst looks for a DKMS tarball
seed='mkdir -p /usr/share/pcitopo-dkms && cp "$OUT"/prebuilt/pcitopo-*.dkms.tar.gz /usr/share/pcitopo-dkms/'
export DEBIAN_FRONTEND=noninteractive
t0=$SECONDS
r=$(g 600 "$seed"'
	export DEBIAN_FRONTEND=noninteractive
	# a Slurm node: helpers.conf is the condition of the reload path unit
	mkdir -p /etc/slurm && echo "# t-pkg: a node_features/helpers node" >/etc/slurm/helpers.conf
	# a Kubernetes node: NFD'"'"'s features.d (its worker'"'"'s hostPath) is there
	nfd=/etc/kubernetes/node-feature-discovery/features.d
	mkdir -p "$nfd"
	# settled UNIT: wait until systemd is done with it (no job, not
	# activating: a unit that fails is restarted until its start limit)
	settled() {
		for i in $(seq 240); do
			[ "$(systemctl show -P ActiveState "$1")" != activating ] &&
				[ -z "$(systemctl list-jobs --no-legend "$1")" ] && return 0
			sleep 0.5
		done
		return 1
	}
	tests/vm/guest/apt-timed.sh /tmp/apt.log apt-get install -y "$OUT/pcitopo_${V}_amd64.deb" "$OUT/pcitopo-dkms_${V}_all.deb" \
		"$OUT/pcitopo-slurm_${V}_amd64.deb"
	echo "apt=$?"; tail -n 15 /tmp/apt.log | sed "s/^/log=/"
	echo "spath=$(systemctl is-enabled pcitopo-slurm-reconfig.path) $(systemctl is-active pcitopo-slurm-reconfig.path)"
	echo "dkms=$(dkms status pcitopo | tr -d ,)"
	echo "mod=$(cat /sys/module/pcitopo/version 2>&1)"
	echo "enabled=$(systemctl is-enabled topod.service pcitopo-boot.service pcitopo-metrics.timer | tr "\n" " ")"
	echo "unconf=$(systemctl is-active topod.service)"
	echo "pskip=$(grep -c "^pcitopo: topod skipped: /etc/pcitopo/topod.conf names no platform" /tmp/apt.log)"
	echo "group=$(getent group pcitopo | cut -d: -f1)"
	# the shipped topod.conf (no platform), as a boot meets it: the enabled
	# unit started (multi-user.target wants it), then a D-Bus activation of
	# topod'"'"'s name (busctl auto-starts: the same unit; dbus-daemon would
	# answer only after its 25 s activation timeout, Documentation/topod.md,
	# so busctl gives up after 3 s, the start job long queued), then topoctl
	systemctl start topod.service; echo "ustart=$?"; settled topod.service; echo "usettled=$?"
	# (the activation'"'"'s own start: its ExecCondition ran again, one more
	# skip in the journal; systemd 257 keeps no ExecCondition pid after a
	# skip, 252 does)
	cpid() { journalctl -u topod.service -q --no-pager -o cat | grep -c "Skipped due to .exec-condition."; }
	p0=$(cpid)
	a0=$(date +%s%N)
	busctl --system --timeout=3 call org.pcitopo.Topod /org/pcitopo/Topod org.pcitopo.Topod1 Status >/tmp/act.log 2>&1
	echo "activation=$? $((($(date +%s%N) - a0) / 1000000)) ms: $(head -c 200 /tmp/act.log | tr "\n" " ")"
	for i in $(seq 120); do [ "$(cpid)" != "$p0" ] && break; sleep 0.5; done
	echo "actran=$([ "$(cpid)" -gt "$p0" ] && echo yes || echo no)"
	settled topod.service
	# (Result is exec-condition on 252, success on 257: the skips in the journal
	# are what both show; three here: the postinst'"'"'s start, this one and
	# the activation)
	echo "uunit=$(systemctl is-failed topod.service) $(systemctl show -P NRestarts topod.service) skipped $(cpid)"
	echo "failed=$(systemctl list-units --state=failed --no-legend --plain | awk "{print \$1}" | tr "\n" " ")"
	echo "system=$(systemctl is-system-running)"
	topoctl status >/dev/null 2>/tmp/st.err; echo "ustatus=$? $(cat /tmp/st.err)"
	echo "ujson=$(topoctl -j status 2>/dev/null | jq -r .error)"
	# a topod.conf that names a platform but is wrong: the start fails,
	# once, loudly (exit 78, not restarted)
	cp /etc/pcitopo/topod.conf /tmp/topod.conf.shipped
	{ cat /tmp/topod.conf.shipped
	  echo "platform = \"/etc/pcitopo/platforms/no-such-model.conf\";"
	  echo "bmc = { transport = \"inband\"; device = \"/dev/ipmi0\"; };"; } >/etc/pcitopo/topod.conf
	systemctl start topod.service 2>/dev/null; echo "mstart=$?"; settled topod.service
	echo "munit=$(systemctl is-failed topod.service) $(systemctl show -P NRestarts topod.service) $(systemctl show -P ExecMainStatus topod.service)"
	topoctl status >/dev/null 2>/tmp/st.err; echo "mstatus=$? $(cat /tmp/st.err)"
	cp /tmp/topod.conf.shipped /etc/pcitopo/topod.conf
	systemctl reset-failed topod.service
	# the module at boot: modprobe@pcitopo.service in sysinit.target, no
	# modules-load.d file. Then a boot on a kernel DKMS did not build for:
	# the module away (moved, depmod), and what such a boot runs,
	# systemd-modules-load (every modules-load.d file) and
	# modprobe@pcitopo.service: nothing at error level. Then the module
	# back, and the same unit loads it.
	echo "mwants=$(systemctl show -P Wants sysinit.target | tr " " "\n" | grep -cx modprobe@pcitopo.service) $(ls /lib/modules-load.d /usr/lib/modules-load.d /etc/modules-load.d 2>/dev/null | grep -c pcitopo.conf)"
	ko=$(modinfo -n pcitopo)
	modprobe -r pcitopo && mv "$ko" /tmp/pcitopo.ko.away && depmod -a "$K"
	cur=$(journalctl -n 0 --show-cursor -q --no-pager | sed -n "s/^-- cursor: //p")
	/lib/systemd/systemd-modules-load >/tmp/mld.log 2>&1; echo "mld=$? $(grep -ci pcitopo /tmp/mld.log)"
	systemctl start modprobe@pcitopo.service
	echo "mpabsent=$(systemctl show -P Result modprobe@pcitopo.service) $([ -d /sys/module/pcitopo ] && echo loaded || echo absent) $(journalctl --after-cursor="$cur" -p err -q --no-pager | grep -ci pcitopo)"
	journalctl --after-cursor="$cur" -p err -q --no-pager | head -n 5 | sed "s/^/mperr=/"
	mv /tmp/pcitopo.ko.away "$ko" && depmod -a "$K"
	systemctl start modprobe@pcitopo.service
	echo "mppresent=$(systemctl show -P Result modprobe@pcitopo.service) $(cat /sys/module/pcitopo/version 2>&1)"
	cat >>/etc/pcitopo/topod.conf <<EOC
platform = "/usr/share/pcitopo/platforms/emulated-mux.conf";
bmc = { transport = "inband"; device = "/dev/ipmi0"; timeout_ms = 5000; };
EOC
	topod --check >/tmp/check.log 2>&1; echo "check=$?"
	systemctl start topod.service; echo "active=$(systemctl is-active topod.service)"
	echo "status=$(topoctl -j status | jq -c "{layout,state}")"
	topoctl set cascade --dry-run >/tmp/dry.log 2>&1; echo "dry=$?"
	rs() { systemctl show -P InactiveExitTimestampMonotonic pcitopo-slurm-reconfig.service; }
	r0=$(rs)
	timeout 120 topoctl set cascade >/tmp/set.log 2>&1; echo "set=$?"; sed "s/^/setlog=/" /tmp/set.log | tail -n 5
	# the commit renames /var/lib/pcitopo/state: the path unit starts the
	# reload service, whose ExecCondition finds no slurmd running
	for i in $(seq 100); do [ "$(rs)" != "$r0" ] && [ "$(systemctl is-active pcitopo-slurm-reconfig.service)" = inactive ] && break; sleep 0.1; done
	echo "reload=$([ "$(rs)" != "$r0" ] && echo ran) $(systemctl show -P ExecCondition pcitopo-slurm-reconfig.service | grep -o "status=[0-9]*")"
	echo "after=$(topoctl -j status | jq -r "[.layout, .committed_layout, .state] | join(\" \")")"
	echo "layout=$(cat /sys/kernel/pcitopo/layout) $(cat /sys/kernel/pcitopo/count_gpus)"
	echo "labels=$(sed -n "s|^pcitopo.feature.node.kubernetes.io/layout=||p;s|^pcitopo.feature.node.kubernetes.io/state=||p" "$nfd/pcitopo" | tr "\n" " ")"
')
echo "# install: $((SECONDS - t0)) s (apt-get $(get tapt) s; longest: $(get slow))"
ok "$(is "$(get apt)" 0)" "apt-get install ./pcitopo_$V ./pcitopo-dkms_$V ./pcitopo-slurm_$V: no network, every dependency there" "$r"
ok "$(is "$(get spath)" "enabled active")" "pcitopo-slurm: the reload path unit enabled and watching (helpers.conf there)" "$(get spath)"
ok "$(is "$(get dkms)" "pcitopo/$V $kver x86_64: installed")" "dkms status: pcitopo/$V installed for $kver" "$(get dkms)"
ok "$(is "$(get mod)" "$V")" "the postinst loaded pcitopo.ko $V" "$(get mod)"
ok "$(is "$(get enabled)" "enabled enabled disabled ")" \
	"topod and pcitopo-boot enabled, the metrics timer left to the operator" "$(get enabled)"
ok "$(is "$(get unconf) $(get group)" "inactive pcitopo")" \
	"topod not started while topod.conf names no platform; group pcitopo created"
ok "$(is "$(get pskip)" 1)" "the postinst says once why topod is skipped (topod.conf names no platform)" "$(get pskip)"
echo "# D-Bus activation of org.pcitopo.Topod there (busctl): $(get activation)"
ok "$(is "$(get ustart) $(get usettled) $(get actran) $(get uunit)" "0 0 yes inactive 0 skipped 3")" \
	"unconfigured node, as at boot and after a D-Bus activation: topod.service skipped (ExecCondition), not failed, never restarted" \
	"$(grep -E '^(ustart|usettled|actran|uunit|activation)=' <<<"$r")"
ok "$([[ " $(get failed) " != *" topod.service "* && " $(get failed) " != *" pcitopo"* ]] && echo 0 || echo 1)" \
	"no pcitopo unit failed: the system is not degraded because of pcitopo (is-system-running: $(get system))" \
	"failed: $(get failed)"
ok "$([[ $(get ustatus) == "1 topoctl: topod is not running: this node is not configured for switching (/etc/pcitopo/topod.conf names no platform"* &&
	$(get ujson) == "topod is not running: this node is not configured for switching"* ]] && echo 0 || echo 1)" \
	"topoctl status there: not configured (no platform named), not 'systemctl start topod'; -j: the same as .error" \
	"$(grep -E '^(ustatus|ujson)=' <<<"$r")"
ok "$([[ $(get mstart) != 0 && $(get munit) == "failed 0 78" &&
	$(get mstatus) == "1 topoctl: topod is not running: it failed on its configuration"* ]] && echo 0 || echo 1)" \
	"a platform named but wrong: the start fails loudly, once (exit 78, not restarted); topoctl says so" \
	"$(grep -E '^(mstart|munit|mstatus)=' <<<"$r")"
ok "$(is "$(get mwants)" "1 0")" \
	"pcitopo.ko at boot: sysinit.target wants modprobe@pcitopo.service; no modules-load.d file" "$(get mwants)"
ok "$(is "$(get mld) | $(get mpabsent)" "0 0 | success absent 0")" \
	"no pcitopo.ko for the running kernel: systemd-modules-load and modprobe@pcitopo.service log no error, the unit succeeds" \
	"$(grep -E '^(mld|mpabsent|mperr)=' <<<"$r")"
ok "$(is "$(get mppresent)" "success $V")" "the module back: modprobe@pcitopo.service loads it" "$(get mppresent)"
ok "$(is "$(get check) $(get active)" "0 active")" "topod.conf edited: topod --check passes, topod starts"
ok "$(is "$(get dry)" 0)" "topoctl set cascade --dry-run" "$r"
ok "$(is "$(get set) $(get after) $(get layout)" "0 cascade cascade idle cascade 8")" \
	"topoctl set cascade: the MUX moves, the module sees cascade with 8 GPUs" "$(grep -E '^(set|after|layout|setlog)=' <<<"$r")"
ok "$(is "$(get labels)" "cascade idle ")" \
	"topod's node labels (NFD features.d/pcitopo): layout=cascade, state=idle" "$(get labels)"
# is-active exits 3 for an inactive slurmd (both roots have Slurm's
# daemons, never started here: trixie's units are disabled by
# scripts/mkroot), 4 where no slurmd unit exists: a skip either way
ok "$([[ $(get reload) == "ran status="[34] ]] && echo 0 || echo 1)" \
	"the commit started pcitopo-slurm-reconfig.service through its path unit; no slurmd running, so no reload (ExecCondition: is-active exit 3 inactive, 4 no such unit)" "$(get reload)"

t0=$SECONDS
r=$(g 300 '
	export DEBIAN_FRONTEND=noninteractive
	before=$(systemctl show -P ExecMainPID topod.service)
	tests/vm/guest/apt-timed.sh /tmp/apt.log apt-get install -y "$OUT/pcitopo_${V2}_amd64.deb" "$OUT/pcitopo-dkms_${V2}_all.deb" \
		"$OUT/pcitopo-slurm_${V2}_amd64.deb"
	echo "apt=$?"; tail -n 15 /tmp/apt.log | sed "s/^/log=/"
	echo "ver=$(dpkg-query -W -f="\${Version} " pcitopo pcitopo-dkms pcitopo-slurm)"
	echo "tv=$(topoctl -V) / $(topod --version)"
	echo "conf=$(grep -c emulated-mux /etc/pcitopo/topod.conf)"
	echo "restarted=$([ "$(systemctl show -P ExecMainPID topod.service)" != "$before" ] && systemctl is-active topod.service)"
	echo "after=$(topoctl -j status | jq -r "[.layout, .committed_layout] | join(\" \")")"
	echo "dkms=$(dkms status pcitopo | tr -d , | tr "\n" " ")"
	echo "uplabels=$(sed -n "s|^pcitopo.feature.node.kubernetes.io/layout=||p" /etc/kubernetes/node-feature-discovery/features.d/pcitopo)"
')
echo "# upgrade: $((SECONDS - t0)) s (apt-get $(get tapt) s; longest: $(get slow))"
ok "$(is "$(get apt) $(get ver)" "0 $V2 $V2 $V2 ")" "apt-get install of $V2 upgrades all three" "$r"
ok "$(is "$(get tv)" "topoctl $V2 (pcitopo genl version 1) / topod $V2")" "topoctl -V, topod --version: $V2"
ok "$(is "$(get conf)" 1)" "the edited /etc/pcitopo/topod.conf is kept (conffile)"
ok "$(is "$(get restarted) $(get after)" "active cascade cascade")" \
	"topod restarted on the new version; the committed layout (cascade) kept" "$(grep -E '^(restarted|after)=' <<<"$r")"
ok "$(is "$(get dkms)" "pcitopo/$V2 $kver x86_64: installed ")" "dkms: only pcitopo/$V2, installed" "$(get dkms)"
ok "$(is "$(get uplabels)" cascade)" "the upgrade keeps the node labels (the new topod rewrote them: layout=cascade)" "$(get uplabels)"

t0=$SECONDS
r=$(g 300 '
	export DEBIAN_FRONTEND=noninteractive
	tests/vm/guest/apt-timed.sh /tmp/apt.log apt-get remove -y pcitopo pcitopo-dkms pcitopo-slurm; echo "apt=$?"
	tail -n 10 /tmp/apt.log | sed "s/^/log=/"
	echo "topod=$(systemctl is-active topod.service)"
	echo "mod=$([ -d /sys/module/pcitopo ] && echo loaded || echo unloaded)"
	echo "kept=$(grep -c emulated-mux /etc/pcitopo/topod.conf) $(ls /var/lib/pcitopo | wc -l)"
	echo "ko=$(find /lib/modules/$K -name "pcitopo.ko*" | wc -l)"
	# what the cluster would still read: any pcitopo label in features.d
	nfd=/etc/kubernetes/node-feature-discovery/features.d
	echo "rmlabels=$(cat "$nfd"/* "$nfd"/.??* 2>/dev/null | grep -c "^pcitopo\.feature\.node\.kubernetes\.io/") $(ls -A "$nfd" | tr "\n" " ")"
	tests/vm/guest/apt-timed.sh /tmp/apt.log apt-get purge -y pcitopo pcitopo-dkms pcitopo-slurm | sed -e "s/^tapt=/papt=/" -e "s/^slow=/pslow=/"; echo "purge=${PIPESTATUS[0]}"
	echo "gone=$([ -e /etc/pcitopo/topod.conf ] && echo conf)$([ -e /var/lib/pcitopo ] && echo state)$(dkms status pcitopo)"
	echo "purgelabels=$(ls -A "$nfd" | grep -c pcitopo)"
')
echo "# remove, purge: $((SECONDS - t0)) s (apt-get remove $(get tapt) s, longest: $(get slow); purge $(get papt) s, longest: $(get pslow))"
ok "$(is "$(get apt) $(get topod) $(get mod) $(get ko)" "0 inactive unloaded 0")" \
	"apt-get remove: topod stopped, pcitopo.ko unloaded and removed" "$(grep -E '^(apt|topod|mod|ko|log)=' <<<"$r")"
ok "$([[ $(get kept) =~ ^1\ [1-9] ]] && echo 0 || echo 1)" \
	"remove keeps the edited topod.conf and /var/lib/pcitopo's state" "$(get kept)"
ok "$(is "$(get purge) [$(get gone)]" "0 []")" "apt-get purge: topod.conf and /var/lib/pcitopo gone, no dkms module" "$r"
ok "$(is "$(get rmlabels)" "0 ")" \
	"apt-get remove: no node label left that claims a managed node (features.d has no pcitopo file)" "$(get rmlabels)"
ok "$(is "$(get purgelabels)" 0)" "apt-get purge: no pcitopo file in NFD's features.d" "$(get purgelabels)"
echo "# second kernel: built by dkms autoinstall on the host (above); not in the guest (a TCG DKMS build takes > 6 min)"
echo "1..$n"
((failed == 0))
