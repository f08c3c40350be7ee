# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by scripts and tests: the kernels of scripts/kernels.list, their
# release roots (scripts/mkroot) and where each one's pieces are. The one
# reader of that list.

kernels_top=$(dirname "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")")

# Cache base: $PCITOPO_CACHE, else $XDG_CACHE_HOME/pcitopo, else ~/.cache/pcitopo.
pt_cache() {
	echo "${PCITOPO_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pcitopo}"
}

# The list's lines, without comments: "NAME RELEASE ROOT BOOT".
kernels_lines() {
	grep -Ev '^[[:space:]]*(#|$)' "$kernels_top/scripts/kernels.list"
}

# kernels_names [BOOT...]: the names, in the list's order; with BOOT words,
# only the kernels booted that way.
# shellcheck disable=SC2120 # BOOT words are optional
kernels_names() {
	local name rel root boot want
	while read -r name rel root boot; do
		if (($#)); then
			for want; do
				[[ $boot == "$want" ]] && { echo "$name"; break; }
			done
		else
			echo "$name"
		fi
	done < <(kernels_lines)
}

# kernel_field NAME FIELD (release, root, boot): one field of NAME's line.
kernel_field() {
	local name rel root boot
	while read -r name rel root boot; do
		[[ $name == "$1" ]] || continue
		case $2 in
		release) echo "$rel" ;;
		root) echo "$root" ;;
		boot) echo "$boot" ;;
		esac
		return 0
	done < <(kernels_lines)
	echo "kernels: no kernel '$1' in scripts/kernels.list ($(kernels_names | tr '\n' ' '))" >&2
	return 1
}

# The root folder of RELEASE (scripts/mkroot makes it), "/" for host.
release_root() {
	if [[ $1 == host ]]; then echo /; else echo "$(pt_cache)/roots/$1"; fi
}

# kernel_root NAME: the root NAME is built in (and booted with, for system).
kernel_root() {
	local rel
	rel=$(kernel_field "$1" release) || return 1
	release_root "$rel"
}

# kernel_release NAME: its uname -r (6.12.117+deb13-amd64), by scripts/kver's
# rule inside its root; fails with a message if the root is not made yet.
kernel_release() {
	local root
	root=$(kernel_root "$1") || return 1
	if [[ $root != / && ! -f $root/.pcitopo-root ]]; then
		echo "kernels: the root of $1 ($root) is not made: run scripts/setup" >&2
		return 1
	fi
	"$kernels_top/scripts/kver" --root "$root"
}

# kernel_kdir NAME: its headers folder, as seen inside its root.
kernel_kdir() {
	local root
	root=$(kernel_root "$1") || return 1
	"$kernels_top/scripts/kver" --root "$root" --dir
}

# The kernel the emulated server boots: $PCITOPO_KERNEL, else deb12's line's
# name (the host's release).
vm_kernel() {
	if [[ -n ${PCITOPO_KERNEL:-} ]]; then
		kernel_field "$PCITOPO_KERNEL" boot >/dev/null || return 1
		echo "$PCITOPO_KERNEL"
	else
		kernels_host
	fi
}

# The name of the line whose release is host.
kernels_host() {
	local name rel root boot
	while read -r name rel root boot; do
		[[ $rel == host ]] && { echo "$name"; return 0; }
	done < <(kernels_lines)
	echo "kernels: no host line in scripts/kernels.list" >&2
	return 1
}

# kernel_module NAME: the pcitopo.ko built for NAME, relative to the
# repository (make builds kmod/ for the host's kernel; make kernels builds
# the others in build/kmod/KVER, scripts/kbuild-matrix).
kernel_module() {
	local kv
	if [[ $(kernel_field "$1" release) == host ]]; then
		echo kmod/pcitopo.ko
		return 0
	fi
	kv=$(kernel_release "$1") || return 1
	echo "build/kmod/$kv/kmod/pcitopo.ko"
}

# in_root ROOT CMD...: CMD chrooted into ROOT in a private mount namespace
# (nothing stays mounted), with /proc, /dev, /sys, a fresh /tmp and the
# repository bound at its own path (paths mean the same inside and out).
# ROOT / runs CMD as it is.
in_root() {
	local root=$1
	shift
	if [[ $root == / ]]; then
		"$@"
		return
	fi
	# shellcheck disable=SC2016 # the script expands in the new namespace
	unshare --mount --propagation private -- /bin/bash -c '
		set -e
		r=$1 top=$2
		shift 2
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mount --rbind /sys "$r/sys"
		mount -t tmpfs tmpfs "$r/tmp"
		mkdir -p "$r$top"
		mount --bind "$top" "$r$top"
		exec chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 TERM=dumb \
			/bin/sh -c '\''cd "$1" && shift && exec "$@"'\'' sh "$top" "$@"' \
		in_root "$root" "$kernels_top" "$@"
}
