# SPDX-License-Identifier: GPL-2.0-or-later
#
# `topoctl export --format prometheus` against `topoctl -j export` of the same
# model:
#   jq -n -r --slurpfile p SAMPLES --slurpfile j EXPORT -f tests/promagree.jq
# SAMPLES: promcheck.py --json of the Prometheus text; EXPORT: the JSON.
# Prints one line per disagreement, nothing when every figure agrees: the
# layout state set has exactly one 1, JSON's layout; the counts are the
# summary's; every device with a link has each link series once, equal to
# the JSON figure times its unit factor (MT/s and MB/s are 10^6) or to its
# flag as 0/1, and no other device has any; every path has its info series
# with JSON's class and its other series with JSON's figures; no family is
# missing or unknown.

def key($n; $l): $n + "{" + ($l | to_entries | sort_by(.key) |
	map(.key + "=" + .value) | join(",")) + "}";
def b01: if . then 1 else 0 end;

$p[0] as $s | $j[0] as $x |
(reduce $s[] as $e ({}; .[key($e.name; $e.labels)] += [$e.value])) as $idx |
# the values of one series (an array: [] when missing, two when doubled)
def val($n; $l): $idx[key($n; $l)] // [];
def count($n): [$s[] | select(.name == $n)] | length;
def want($what; $got; $exp): if $got == [$exp] then empty
	else "\($what): got \($got), want [\($exp)]" end;

[["speed", "pcitopo_link_speed_transfers_per_second", 1000000],
 ["max_speed", "pcitopo_link_max_speed_transfers_per_second", 1000000],
 ["width", "pcitopo_link_width_lanes", 1],
 ["max_width", "pcitopo_link_max_width_lanes", 1],
 ["bw", "pcitopo_link_bandwidth_bytes_per_second", 1000000],
 ["max_bw", "pcitopo_link_max_bandwidth_bytes_per_second", 1000000],
 ["active", "pcitopo_link_active", null],
 ["downtrained_width", "pcitopo_link_width_down", null],
 ["speed_low", "pcitopo_link_speed_down", null]] as $links |
[["generation", "pcitopo_generation"], ["devices", "pcitopo_devices"],
 ["gpus", "pcitopo_gpus"], ["nics", "pcitopo_nics"],
 ["nvmes", "pcitopo_nvmes"], ["switches", "pcitopo_switches"],
 ["root_ports", "pcitopo_root_ports"],
 ["numa_nodes", "pcitopo_numa_nodes"], ["paths", "pcitopo_paths"]] as $counts |
[["hops", "pcitopo_path_hops"],
 ["bottleneck_bw", "pcitopo_path_bottleneck_bytes_per_second"],
 ["acs-redirect", "pcitopo_path_acs_redirect"],
 ["numa-unknown", "pcitopo_path_numa_unknown"]] as $paths |
([$links[][1], $counts[][1], $paths[][1], "pcitopo_layout",
  "pcitopo_layout_info", "pcitopo_path_info",
  "pcitopo_doctor_findings"]) as $families |
[$x.devices[] | select(.link != null)] as $linked |

# the layout: a state set of the five layouts, one 1, JSON's
([$s[] | select(.name == "pcitopo_layout")] as $l |
	(if ($l | map(.labels.layout) | sort) ==
	    ["balance", "cascade", "common", "other", "unknown"] then empty
	 else "pcitopo_layout: states \($l | map(.labels.layout))" end),
	(if ($l | map(.value) | sort) == [0, 0, 0, 0, 1] then empty
	 else "pcitopo_layout: values \($l | map(.value)), want one 1" end),
	want("pcitopo_layout: the 1"; [$l[] | select(.value == 1) | .labels.layout];
	     $x.summary.layout)),
want("pcitopo_layout_info"; val("pcitopo_layout_info";
     {layout: $x.summary.layout, reason: $x.summary.reason}); 1),

# the summary's counts
($counts[] as [$k, $n] | want($n; val($n; {}); $x.summary[$k])),

# every device with a link, each figure once; nothing for the others
($links[] as [$f, $n, $mul] |
	(if count($n) == ($linked | length) then empty
	 else "\($n): \(count($n)) series, \($linked | length) devices with a link" end),
	($linked[] as $d |
		want("\($n){device=\($d.addr)}";
		     val($n; {device: $d.addr, name: ($d.name // ""),
			      kind: $d.kind, role: $d.role});
		     if $mul == null then ($d.link[$f] | b01)
		     else $d.link[$f] * $mul end))),

# every path: its class, hops, bottleneck and flags
(if count("pcitopo_path_info") == ($x.paths | length) then empty
 else "pcitopo_path_info: \(count("pcitopo_path_info")) series, \($x.paths | length) paths" end),
($x.paths[] as $q |
	{a: $q.a, a_name: ($q.a_name // ""), b: $q.b, b_name: ($q.b_name // "")} as $pl |
	want("pcitopo_path_info{\($q.a_name)-\($q.b_name) class=\($q.class)}";
	     val("pcitopo_path_info"; $pl + {class: $q.class}); 1),
	($paths[] as [$f, $n] |
		want("\($n){\($q.a_name)-\($q.b_name)}"; val($n; $pl);
		     if $f == "hops" then $q.hops
		     elif $f == "bottleneck_bw" then $q.bottleneck_bw * 1000000
		     else ($q.flags | any(. == $f) | b01) end))),
($paths[] as [$f, $n] |
	if count($n) == ($x.paths | length) then empty
	else "\($n): \(count($n)) series, \($x.paths | length) paths" end),

# no family missing, none unknown
($families[] as $f | if any($s[]; .name == $f) or
	($f | startswith("pcitopo_link_")) and ($linked | length) == 0 or
	($f | startswith("pcitopo_path_")) and ($x.paths | length) == 0
	then empty else "\($f): missing" end),
([$s[].name] | unique[] as $f |
	if any($families[]; . == $f) then empty else "\($f): unknown family" end)
