#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The tests' Redfish BMC as an independent client reads it: Debian's
python3-sushy (OpenStack's Redfish library), not topod. A session, the
system, its Bios attribute, a Settings PATCH pending, a PowerCycle reset
applying it (its registries are not read: Debian's
package lacks sushy's standard_registries); the zone form's Fabric and its
Endpoints (sushy 4.3 has no Zone resource: tests/bmc/t-redfish.sh reads the
zones with redfishtool); one "key: value" line each, which
tests/bmc/t-redfish.sh compares.

  redfish-sushy.py URL CA_FILE USER PASSWORD
"""
import sys

import sushy
from sushy import auth

url, ca, user, password = sys.argv[1:5]
s = sushy.Sushy(url + "/redfish/v1", verify=ca,
                auth=auth.SessionAuth(username=user, password=password))
print("redfish:", s.redfish_version)
system = s.get_system("/redfish/v1/Systems/1")
bios = system.bios
print("attribute:", bios.attributes["PCIeTopology"])
bios.set_attributes({"PCIeTopology": "Cascade"})
print("pending:", bios.pending_attributes.get("PCIeTopology"))
print("reset types:", " ".join(sorted(str(v.value) for v in
                                      system.get_allowed_reset_system_values())))
system.reset_system(sushy.ResetType.POWER_CYCLE)
bios.refresh(force=True)
print("after reset:", bios.attributes["PCIeTopology"])
fabrics = s.get_fabric_collection()
fabric = fabrics.get_member(fabrics.members_identities[0])
print("fabric:", fabric.identity, fabric.fabric_type.value if hasattr(
    fabric.fabric_type, "value") else fabric.fabric_type, "max zones",
    fabric.max_zones)
print("endpoints:", " ".join(sorted(
    "%s/%s" % (ep.identity, ep.endpoint_protocol.value if hasattr(
        ep.endpoint_protocol, "value") else ep.endpoint_protocol)
    for ep in fabric.endpoints.get_members())))
