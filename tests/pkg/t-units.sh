#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every unit of another package that pcitopo stops or orders against is the
# name that package ships (Documentation/other-units.md, where each row
# cites its source). TAP on stdout; host only, about a second.
#
# The names, from the tree as it is:
#   - the platform files' stop_units (platforms/*.conf) and the manual's
#     examples of them (pcitopo-platform(5), platform.c's message);
#   - the shipped units' dependencies and orderings (Wants=, After=,
#     Before=, WantedBy=, ...), and the unit names in their Exec lines
#     (systemctl is-active, reload);
#   - the unit names the maintainer scripts pass to systemctl and
#     deb-systemd-invoke;
#   - the units whose drop-in directories pcitopo installs (X.service.d);
#   - the units linked into another package's .wants directory.
# Each must be a row of the table, less pcitopo's own units (systemd/) and
# topod's bus alias; X@Y.service is the template X@.service. Anywhere else
# in the tree (documentation, comments, tests), a GPU service's unit name
# (nvidia-*, *dcgm*, *fabricmanager*, *persistenced*) must be a row of the
# table or of its "Names not to use" (dcgm.service, an alias). Every row
# must be used (no stale row), and where this machine has the unit from a
# package (dpkg -S), the table names that package.
# shellcheck disable=SC2016 # the backquotes are the table's markdown
set -uo pipefail
top=$(dirname "$(dirname "$(dirname "$(readlink -f "$0")")")")
cd "$top" || exit 1
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
table=Documentation/other-units.md
U='[A-Za-z0-9][A-Za-z0-9_.@-]*\.(service|target|timer|path|socket|mount)'

# pcitopo's own units: the files of systemd/, and topod's bus alias
own=$(cd systemd && ls -- *.service *.timer *.path 2>/dev/null
	sed -n 's/^Alias=//p' topod.service | tr ' ' '\n')

# FILE as text: roff's \- and \(dq as the characters they print
text() { sed -e 's/\\-/-/g' -e 's/\\(dq/"/g' "$1"; }

# NAME<TAB>WHERE lines
found() {
	local f
	# platform files: the strings of stop_units = [ ... ];
	for f in platforms/*.conf; do
		sed -n '/^[[:space:]]*stop_units[[:space:]]*=/,/\]/p' "$f" |
			grep -oE "\"$U\"" | tr -d '"' | sed "s|\$|\t$f stop_units|"
	done
	# the manual's stop_units examples and the parser's message
	text daemon/platform/pcitopo-platform.5 |
		sed -n '/stop_units/,/\]/p' | grep -oE "$U" |
		sed "s|\$|\tdaemon/platform/pcitopo-platform.5|"
	grep -ohE "\\\\\"$U\\\\\"" daemon/platform/platform.c | tr -d '\\"' |
		sed "s|\$|\tdaemon/platform/platform.c|"
	# the shipped units: dependency and ordering directives, Exec lines
	for f in systemd/*.service systemd/*.timer systemd/*.path systemd/*.conf; do
		grep -E '^(Wants|Requires|Requisite|BindsTo|PartOf|Upholds|Conflicts|Before|After|OnFailure|OnSuccess|WantedBy|RequiredBy|UpheldBy|Also|PropagatesReloadTo|ReloadPropagatedFrom|Unit|Exec[A-Za-z]*)=' "$f" |
			cut -d= -f2- | grep -oE "$U" | sed "s|\$|\t$f|"
	done
	# the maintainer scripts
	for f in debian/*.postinst debian/*.prerm debian/*.postrm debian/*.preinst; do
		[[ -f $f ]] || continue
		grep -E 'systemctl|deb-systemd-invoke|deb-systemd-helper' "$f" |
			grep -oE "$U" | sed "s|\$|\t$f|"
	done
	# drop-in and .wants directories installed for another package's
	# unit, and the units linked into the latter
	grep -ohE "$U\.(d|wants)/" Makefile debian/*.install | sed -E 's#\.(d|wants)/$##' |
		sed "s|\$|\tdrop-in or .wants directory (Makefile, debian/*.install)|"
	grep -ohE "\.wants/$U" Makefile debian/*.install | sed 's|^\.wants/||' |
		sed "s|\$|\ta .wants link (Makefile, debian/*.install)|"
}

# NAME<TAB>WHERE: the GPU services' names anywhere in the tree, in words
# too (documentation, comments, tests), less this checker's own message
mentioned() {
	git ls-files -z | xargs -0 grep -IlE "(nvidia|dcgm|fabricmanager|persistenced)[A-Za-z0-9_.@-]*\.(service|target)" 2>/dev/null |
		grep -vx tests/pkg/t-units.sh | while read -r f; do
			text "$f" | grep -oE "[A-Za-z0-9_.@-]*(nvidia|dcgm|fabricmanager|persistenced)[A-Za-z0-9_.@-]*\.(service|target)" |
				sed "s|\$|\t$f|"
		done
}

# the table of units (before its heading "Names not to use"), and the
# names that must not be used but may be named (why not: an alias)
rows=$(sed '/^## Names not to use/,$d' "$table" | grep -oE '^\| `[^`]+`' | sed 's/^| `//; s/`$//')
shun=$(sed -n '/^## Names not to use/,$p' "$table" | grep -oE '^\| `[^`]+`' | sed 's/^| `//; s/`$//')
ok "$([[ -n $rows ]] && echo 0 || echo 1)" "$table: a table of units ($(wc -l <<<"$rows") rows)"

declare -A where=()
while IFS=$'\t' read -r u w; do
	[[ -n $u ]] || continue
	grep -qxF -- "$u" <<<"$own" && continue
	[[ $u == *@?*.* ]] && u=${u%%@*}@.${u##*.}	# an instance: its template
	where[$u]+="${where[$u]:+, }$w"
done < <(found | sort -u)

for u in $(printf '%s\n' "${!where[@]}" | sort); do
	ok "$(grep -qxF -- "$u" <<<"$rows"; echo $?)" \
		"$u (${where[$u]}): the name its package ships ($table)" \
		"not in $table's table: a name no cited package ships, or one not to use"
done
# a GPU service named in words (documentation, comments, tests): a unit of
# the table, or a name the table says not to use (and why)
declare -A said=()
while IFS=$'\t' read -r u w; do
	[[ -n $u && -z ${where[$u]:-} ]] || continue
	said[$u]+="${said[$u]:+, }$w"
done < <(mentioned | sort -u)
for u in $(printf '%s\n' "${!said[@]}" | sort); do
	ok "$(grep -qxF -- "$u" <<<"$rows"$'\n'"$shun"; echo $?)" \
		"$u (named in ${said[$u]}): in $table" "neither a unit of its table nor a name it says not to use"
done

# no stale row: a row that nothing uses any more
stale=
for u in $rows; do
	[[ -n ${where[$u]:-} ]] || stale+=" $u"
done
ok "$([[ -z $stale ]] && echo 0 || echo 1)" "$table: every row is used by the tree" "unused:$stale"

# each row cites a package and a source
bad=$(sed '/^## Names not to use/,$d' "$table" | grep -E '^\| `' | awk -F'|' '{ if (NF < 6 || $3 ~ /^ *$/ || $5 ~ /^ *$/) print $2 }')
ok "$([[ -z $bad ]] && echo 0 || echo 1)" "$table: every row names the package and the source" "$bad"

# where this machine has the unit from a package, the table names that one
for u in $rows; do
	[[ $u == *@* || $u == *.target || $u == *.service ]] || continue
	pkg=$(dpkg -S "/lib/systemd/system/$u" "/usr/lib/systemd/system/$u" 2>/dev/null | head -n 1 | cut -d: -f1)
	[[ -n $pkg ]] || continue
	line=$(grep -F "| \`$u\` |" "$table" | awk -F'|' '{print $3}')
	ok "$(grep -q "\`$pkg\`" <<<"$line"; echo $?)" \
		"$u: installed here by $pkg, as the table says" "table: $line"
done
tap_end
