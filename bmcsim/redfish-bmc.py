#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A Redfish BMC for the tests (Python 3's standard library only).

HTTPS on 127.0.0.1 only, with the certificate and key the test made (never
committed). What it serves, as DMTF's schemas name it:

  /redfish/v1                          ServiceRoot (no authentication)
  /redfish/v1/SessionService/Sessions  POST {UserName, Password}: 201,
                                       X-Auth-Token, Location; DELETE it
  /redfish/v1/Systems/1                ComputerSystem, its Reset action
  /redfish/v1/Systems/1/Bios           the attributes in effect
  /redfish/v1/Systems/1/Bios/Settings  the pending ones: PATCH, with If-Match
                                       (the ETag of a GET) checked where sent,
                                       required with --require-if-match;
                                       applied by a reset
  /redfish/v1/Systems/1/Actions/ComputerSystem.Reset
                                       applies what is pending (202 and a
                                       TaskMonitor with --task)
  /redfish/v1/Registries/BiosAttributeRegistry[/...json]
                                       the AttributeRegistry: names, display
                                       names, help text, allowed values
  /redfish/v1/Fabrics/PCIe             the zone form (Fabric, Zone v1_6_0):
  /redfish/v1/Fabrics/PCIe/Endpoints   GPU0..GPU7
  /redfish/v1/Fabrics/PCIe/Zones/ID    one zone per host port, Links.Endpoints
                                       the GPUs wired to it: PATCH with
                                       If-Match (ETag per zone; required
                                       with --require-if-match), or
                                       Actions/Zone.AddEndpoint and
                                       Zone.RemoveEndpoint ({"Endpoint":
                                       {"@odata.id": ...}}, ZoneETag checked
                                       where sent); applied at once (online).
                                       An endpoint is in one zone at a time:
                                       adding it to a second is refused
                                       (400 ResourceInUse)
Errors carry @Message.ExtendedInfo, as Redfish's Base registry words them.

Fault knobs, for the tests (POST /_sim/fault, JSON, no authentication; the
listener is loopback only): {"etag_race": 1} the next PATCH finds the
Settings changed by another client (412); {"busy": N} the next N requests
for the system (/redfish/v1/Systems/...) are answered 503 as by a BMC
whose host is resetting; {"reset_busy": N} a reset is followed by N such
answers; {"expire_after": N} after N more requests with a session's
token, every session is dropped (401 for their tokens); {"task_fail": N}
the next N TaskMonitors end in TaskState Exception, nothing applied;
{"reset_noop": N} the next N resets are answered as done (204) and
nothing happens (no power cycle, nothing applied); {"reject_value": N} the
next N Bios/Settings PATCHes are refused (400 PropertyValueConflict),
though the registry allows the value. etag_race and busy hold for the
zones too (their PATCH; the fabric's resources); {"etag_race_skip": N}
lets N zone PATCHes through before the race; {"patch_busy": N} the next N
zone PATCHes are answered 503, after {"patch_busy_skip": M} let through. GET /_sim/log: one line per session created,
deleted or expired, per PATCH, zone change and reset (also --log FILE).

--state FILE writes "current=CODE", the layout code tests/topod's stand-in
reads: with --form bios (the default) that of the topology attribute's
value in effect, at start and at every reset; with --form zones that of
the zones' endpoints (ZONE_LAYOUTS), at start and at every zone change.
"""
import argparse
import base64
import json
import os
import secrets
import ssl
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOPO = "PCIeTopology"
# the stand-in's layout codes (include/uapi/linux/pcitopo.h)
CODES = {"Balance": 1, "Common": 2, "Cascade": 3}

REGISTRY = [
    {"AttributeName": "BootMode", "DisplayName": "Boot Mode",
     "HelpText": "Firmware boot mode.", "Type": "Enumeration",
     "Value": [{"ValueName": "Uefi"}, {"ValueName": "Legacy"}],
     "DefaultValue": "Uefi"},
    {"AttributeName": "SriovGlobalEnable", "DisplayName": "SR-IOV",
     "HelpText": "Single Root I/O Virtualization for every device.",
     "Type": "Enumeration",
     "Value": [{"ValueName": "Enabled"}, {"ValueName": "Disabled"}],
     "DefaultValue": "Enabled"},
    {"AttributeName": TOPO, "DisplayName": "GPU PCIe Topology",
     "HelpText": "How the PCIe switches connect the GPUs to the CPUs: "
                 "Balance (both root ports), Common (one root port), "
                 "Cascade (switches chained). Applied at the next boot.",
     "Type": "Enumeration",
     "Value": [{"ValueName": "Balance"}, {"ValueName": "Common"},
               {"ValueName": "Cascade"}],
     "DefaultValue": "Balance"},
    {"AttributeName": "ProcTurboMode", "DisplayName": "Turbo Mode",
     "HelpText": "Processor turbo boost.", "Type": "Enumeration",
     "Value": [{"ValueName": "Enabled"}, {"ValueName": "Disabled"}],
     "DefaultValue": "Enabled"},
]

BASE = "Base.1.16.0."

# The zone form: the emulated server's PCIe fabric, one zone per host
# port (as H3 Platform's Falcon has them); GPU4-7, behind switch 1, are
# wired to one of them, which is the layout.
FABRIC = "PCIe"
ENDPOINTS = ["GPU%d" % i for i in range(8)]
ZONES = ["CPU0-RP0", "CPU0-RP1", "CPU1-RP0"]
LOW = ENDPOINTS[:4]
HIGH = ENDPOINTS[4:]
# the layout code of each wiring (switch 1 under CPU1: balance; under
# CPU0's second root port: common; chained behind switch 0: cascade)
ZONE_LAYOUTS = {
    1: {"CPU0-RP0": LOW, "CPU0-RP1": [], "CPU1-RP0": HIGH},
    2: {"CPU0-RP0": LOW, "CPU0-RP1": HIGH, "CPU1-RP0": []},
    3: {"CPU0-RP0": LOW + HIGH, "CPU0-RP1": [], "CPU1-RP0": []},
}
FAB = "/redfish/v1/Fabrics/" + FABRIC


def message(mid, text, args=(), sev="Warning"):
    return {"MessageId": BASE + mid, "Message": text,
            "MessageArgs": list(args), "MessageSeverity": sev}


class State:
    def __init__(self, a):
        self.a = a
        self.lock = threading.Lock()
        self.current = {e["AttributeName"]: e["DefaultValue"]
                        for e in REGISTRY}
        if a.current:
            self.current[TOPO] = a.current
        self.pending = {}
        self.etag = 1
        self.sessions = {}      # token -> id
        self.next_session = 1
        self.tasks = {}         # id -> polls left
        self.next_task = 1
        self.busy = 0
        self.reset_busy = 0
        self.etag_race = 0
        self.expire_after = 0
        self.task_fail = 0
        self.reset_noop = 0
        self.reject_value = 0
        self.etag_race_skip = 0
        self.patch_busy = 0
        self.patch_busy_skip = 0
        code = CODES.get(a.current_zones or "", 1)
        self.zones = {z: list(e) for z, e in ZONE_LAYOUTS[code].items()}
        self.zone_etag = {z: 1 for z in ZONES}
        self.log = []
        self.write_state()

    def note(self, line):
        self.log.append(line)
        if self.a.log:
            with open(self.a.log, "a", encoding="utf-8") as f:
                f.write(line + "\n")

    def zone_code(self):
        """the layout the zones' endpoints are (0: none of them)"""
        for code, want in ZONE_LAYOUTS.items():
            if all(sorted(self.zones[z]) == sorted(e)
                   for z, e in want.items()):
                return code
        return 0

    def write_state(self):
        if self.a.state:
            code = self.zone_code() if self.a.form == "zones" else \
                CODES.get(self.current[TOPO], 0)
            with open(self.a.state + ".tmp", "w", encoding="utf-8") as f:
                f.write("current=%d\n" % code)
            os.replace(self.a.state + ".tmp", self.a.state)

    def zone_change(self, zone, endpoints, how):
        """online: the wiring changes now, and the stand-in sees it"""
        self.zones[zone] = endpoints
        self.zone_etag[zone] += 1
        self.write_state()
        self.note("zone %s %s: %s" % (zone, how, ",".join(endpoints)))

    def apply(self):
        self.current.update(self.pending)
        self.pending = {}
        self.etag += 1
        # a BMC resetting the host answers 503 for a while
        self.busy += self.reset_busy
        self.write_state()
        self.note("reset: %s=%s" % (TOPO, self.current[TOPO]))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "redfish-bmc-sim/1"

    def log_message(self, fmt, *args):
        if self.server.st.a.verbose:
            sys.stderr.write("redfish-bmc: " + fmt % args + "\n")

    # --- replies -------------------------------------------------------
    def reply(self, code, body=None, headers=()):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(code)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("OData-Version", "4.0")
        for k, v in headers:
            self.send_header(k, v)
        # one request a connection: a kept-alive TLS connection was seen
        # dropped under a client now and then (python3-sushy:
        # RemoteDisconnected), and a test must not depend on that luck
        self.send_header("Connection", "close")
        self.close_connection = True
        self.end_headers()
        self.wfile.write(data)

    def error(self, code, *msgs, headers=()):
        self.reply(code, {"error": {
            "code": msgs[0]["MessageId"], "message": msgs[0]["Message"],
            "@Message.ExtendedInfo": list(msgs)}}, headers)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return None

    # --- authentication ------------------------------------------------
    def authed(self, st):
        tok = self.headers.get("X-Auth-Token")
        if tok and tok in st.sessions:
            if st.expire_after > 0:
                st.expire_after -= 1
                if st.expire_after == 0:
                    # a BMC dropping its sessions (timed out, or reset)
                    for sid in sorted(st.sessions.values()):
                        st.note("session %d expired" % sid)
                    st.sessions.clear()
            return True
        auth = self.headers.get("Authorization", "")
        if st.a.no_sessions and auth.startswith("Basic "):
            try:
                u, _, p = base64.b64decode(auth[6:]).decode().partition(":")
            except ValueError:
                u = p = None
            if u == st.a.user and p == st.a.password:
                return True
        self.error(401, message("NoValidSession", "There is no valid "
                                "session established with the "
                                "implementation."))
        return False

    # --- dispatch ------------------------------------------------------
    def handle_any(self, method):
        st = self.server.st
        path = self.path.split("?")[0].rstrip("/") or "/"
        if path.startswith("/_sim/"):
            return self.sim(st, method, path)
        with st.lock:
            # the system's resources, not the service's: its sessions
            # and TaskMonitors answer while the host resets
            if st.busy > 0 and (path.startswith("/redfish/v1/Systems") or
                                path.startswith("/redfish/v1/Fabrics")):
                st.busy -= 1
                if method != "GET" and self.headers.get("Content-Length"):
                    self.rfile.read(int(self.headers["Content-Length"]))
                return self.error(503, message(
                    "ServiceTemporarilyUnavailable", "The service is "
                    "temporarily unavailable.  Retry in 1 seconds.",
                    ["1"], "Critical"), headers=[("Retry-After", "1")])
            return self.route(st, method, path)

    def sim(self, st, method, path):
        if path == "/_sim/log" and method == "GET":
            return self.reply(200, {"log": st.log})
        if path == "/_sim/fault" and method == "POST":
            b = self.body() or {}
            with st.lock:
                for k in ("etag_race", "busy", "reset_busy", "expire_after",
                          "task_fail", "reset_noop", "reject_value",
                          "etag_race_skip", "patch_busy",
                          "patch_busy_skip"):
                    if k in b:
                        setattr(st, k, int(b[k]))
            return self.reply(204)
        return self.error(404, message("ResourceMissingAtURI", path))

    def route(self, st, method, path):
        sysid = "/redfish/v1/Systems/1"
        if method == "GET" and path == "/redfish/v1" and st.a.not_redfish:
            # some other HTTPS service on the address
            return self.reply(200, {"status": "ok", "service": "webui"})
        if method == "GET" and path == "/redfish/v1":
            root = {"@odata.id": "/redfish/v1",
                    "@odata.type": "#ServiceRoot.v1_15_0.ServiceRoot",
                    "Id": "RootService", "Name": "Root Service",
                    "RedfishVersion": "1.15.0",
                    "Systems": {"@odata.id": "/redfish/v1/Systems"},
                    "Fabrics": {"@odata.id": "/redfish/v1/Fabrics"},
                    "Registries": {"@odata.id": "/redfish/v1/Registries"}}
            if not st.a.no_sessions:
                root["SessionService"] = {
                    "@odata.id": "/redfish/v1/SessionService"}
                root["Links"] = {"Sessions": {
                    "@odata.id": "/redfish/v1/SessionService/Sessions"}}
            return self.reply(200, root)
        if path == "/redfish/v1/SessionService/Sessions" and \
                method == "POST" and not st.a.no_sessions:
            b = self.body() or {}
            if b.get("UserName") != st.a.user or \
                    b.get("Password") != st.a.password:
                return self.error(401, message(
                    "ResourceAtUriUnauthorized", "While accessing the "
                    "resource at /redfish/v1/SessionService/Sessions, the "
                    "service received an authorization error "
                    "'bad credentials'."))
            tok = secrets.token_hex(16)
            sid = st.next_session
            st.next_session += 1
            st.sessions[tok] = sid
            st.note("session %d created" % sid)
            loc = "/redfish/v1/SessionService/Sessions/%d" % sid
            return self.reply(201, {"@odata.id": loc, "Id": str(sid),
                                    "UserName": st.a.user},
                              [("X-Auth-Token", tok), ("Location", loc)])
        if not self.authed(st):
            return None
        if path.startswith("/redfish/v1/SessionService/Sessions/") and \
                method == "DELETE":
            sid = int(path.rsplit("/", 1)[1])
            for tok, s in list(st.sessions.items()):
                if s == sid:
                    del st.sessions[tok]
                    st.note("session %d deleted" % sid)
                    return self.reply(204)
            return self.error(404, message("ResourceMissingAtURI", path))
        if method == "GET" and path == "/redfish/v1/Systems":
            return self.reply(200, {"Members": [{"@odata.id": sysid}],
                                    "Members@odata.count": 1})
        if method == "GET" and path == sysid:
            return self.reply(200, {
                "@odata.id": sysid, "Id": "1", "Name": "System",
                "@odata.type": "#ComputerSystem.v1_20_0.ComputerSystem",
                "PowerState": "On",
                "Status": {"State": "Enabled", "Health": "OK"},
                "Boot": {"BootSourceOverrideEnabled": "Disabled",
                         "BootSourceOverrideTarget": "None"},
                "Bios": {"@odata.id": sysid + "/Bios"},
                "Actions": {"#ComputerSystem.Reset": {
                    "target": sysid + "/Actions/ComputerSystem.Reset",
                    "ResetType@Redfish.AllowableValues":
                        ["On", "ForceOff", "ForceRestart", "PowerCycle"]}}})
        if method == "GET" and path == sysid + "/Bios":
            bios = {
                "@odata.id": sysid + "/Bios", "Id": "Bios", "Name": "BIOS",
                "@odata.type": "#Bios.v1_2_0.Bios",
                "AttributeRegistry": "BiosAttributeRegistry.1.0.0",
                "Attributes": st.current}
            # --no-settings: a Bios whose attributes are read-only
            if not st.a.no_settings:
                bios["@Redfish.Settings"] = {"SettingsObject": {
                    "@odata.id": sysid + "/Bios/Settings"}}
            return self.reply(200, bios)
        if path == sysid + "/Bios/Settings" and not st.a.no_settings:
            return self.settings(st, method, sysid)
        if method == "POST" and \
                path == sysid + "/Actions/ComputerSystem.Reset":
            b = self.body() or {}
            rt = b.get("ResetType")
            if rt not in ("On", "ForceOff", "ForceRestart", "PowerCycle"):
                return self.error(400, message(
                    "ActionParameterValueNotInList", "The value '%s' for "
                    "the parameter ResetType in the action "
                    "ComputerSystem.Reset is not in the list of acceptable "
                    "values." % rt, [str(rt)]))
            if st.reset_noop:
                # accepted, and then nothing: no power cycle, nothing
                # applied (a BMC whose host ignored the request)
                st.reset_noop -= 1
                st.note("reset %s accepted, not performed" % rt)
                return self.reply(204)
            if st.a.task:
                tid = st.next_task
                st.next_task += 1
                st.tasks[tid] = st.a.task
                loc = "/redfish/v1/TaskService/TaskMonitors/%d" % tid
                st.note("reset %s: task %d" % (rt, tid))
                return self.reply(202, {"@odata.id": loc}, [
                    ("Location", loc), ("Retry-After", "1")])
            st.apply()
            return self.reply(204)
        if method == "GET" and \
                path.startswith("/redfish/v1/TaskService/TaskMonitors/"):
            tid = int(path.rsplit("/", 1)[1])
            if tid not in st.tasks:
                return self.error(404, message("ResourceMissingAtURI", path))
            st.tasks[tid] -= 1
            if st.tasks[tid] > 0:
                return self.reply(202, {"TaskState": "Running"},
                                  [("Location", path)])
            del st.tasks[tid]
            if st.task_fail:
                # the BMC gave up: nothing applied, the Task says why
                st.task_fail -= 1
                st.note("task %d failed" % tid)
                return self.reply(200, {
                    "@odata.type": "#Task.v1_7_0.Task", "Id": str(tid),
                    "TaskState": "Exception", "TaskStatus": "Critical",
                    "Messages": [message(
                        "GeneralError", "The host did not power off within "
                        "the time allowed.", sev="Critical")]})
            st.apply()
            return self.reply(204)
        if path == "/redfish/v1/Fabrics" or path.startswith(FAB):
            return self.fabrics(st, method, path)
        if method == "GET" and path == "/redfish/v1/Registries":
            return self.reply(200, {"Members": [{
                "@odata.id": "/redfish/v1/Registries/BiosAttributeRegistry"
            }], "Members@odata.count": 1})
        reg = "/redfish/v1/Registries/BiosAttributeRegistry"
        if method == "GET" and path == reg:
            return self.reply(200, {
                "@odata.id": reg, "Id": "BiosAttributeRegistry",
                "Registry": "BiosAttributeRegistry.1.0.0",
                "Location": [{"Language": "en",
                              "Uri": reg + "/BiosAttributeRegistry.json"}]})
        if method == "GET" and path == reg + "/BiosAttributeRegistry.json":
            return self.reply(200, {
                "@odata.type":
                    "#AttributeRegistry.v1_3_8.AttributeRegistry",
                "Id": "BiosAttributeRegistry.1.0.0",
                "RegistryVersion": "1.0.0", "Language": "en",
                "OwningEntity": "pcitopo tests",
                "RegistryEntries": {"Attributes": REGISTRY}})
        return self.error(404 if method == "GET" else 405, message(
            "ResourceMissingAtURI", "The resource at the URI '%s' was not "
            "found." % path, [path]))

    def settings(self, st, method, sysid):
        etag = 'W/"%d"' % st.etag
        if method == "GET":
            return self.reply(200, {
                "@odata.id": sysid + "/Bios/Settings",
                "@odata.type": "#Bios.v1_2_0.Bios", "Id": "Settings",
                "Name": "BIOS Pending Settings",
                "@odata.etag": etag, "Attributes": st.pending},
                [("ETag", etag)])
        if method != "PATCH":
            return self.error(405, message("OperationNotAllowed", method))
        b = self.body()
        if st.etag_race:
            # another client changed the Settings since our client read it
            st.etag_race -= 1
            st.etag += 1
            etag = 'W/"%d"' % st.etag
        want = self.headers.get("If-Match")
        # If-Match is the client's choice in Redfish (sushy sends none);
        # --require-if-match refuses a PATCH without one, as some BMCs do
        if not want and st.a.require_if_match:
            return self.error(428, message(
                "PreconditionRequired", "A precondition header or "
                "annotation is required to change the resource at the URI "
                "'%s/Bios/Settings'." % sysid))
        if want and want != etag:
            st.note("PATCH refused: If-Match %s, ETag %s" % (want, etag))
            return self.error(412, message(
                "PreconditionFailed", "The ETag supplied did not match the "
                "ETag required to change this resource."))
        if not isinstance(b, dict) or not isinstance(b.get("Attributes"),
                                                     dict):
            return self.error(400, message("MalformedJSON", "The request "
                                           "body submitted was malformed "
                                           "JSON."))
        if st.reject_value:
            # the registry allows the value, this BMC refuses it now (a
            # firmware rule the registry does not state)
            st.reject_value -= 1
            k = sorted(b["Attributes"])[0] if b["Attributes"] else TOPO
            st.note("PATCH rejected: %s" % k)
            return self.error(400, message(
                "PropertyValueConflict", "The property '%s' could not be "
                "written because its value would conflict with the value "
                "of the 'SriovGlobalEnable' property." % k,
                [k, "SriovGlobalEnable"]))
        regs = {e["AttributeName"]: e for e in REGISTRY}
        for k, v in b["Attributes"].items():
            if k not in regs:
                return self.error(400, message(
                    "PropertyUnknown", "The property %s is not in the list "
                    "of valid properties for the resource." % k, [k]))
            if v not in [x["ValueName"] for x in regs[k]["Value"]]:
                return self.error(400, message(
                    "PropertyValueNotInList", "The value '%s' for the "
                    "property %s is not in the list of acceptable values."
                    % (v, k), [str(v), k]))
        for k, v in b["Attributes"].items():
            if self.server.st.current.get(k) == v:
                st.pending.pop(k, None)
            else:
                st.pending[k] = v
        st.etag += 1
        st.note("PATCH %s" % json.dumps(b["Attributes"], sort_keys=True))
        return self.reply(204)

    # --- the zone form -------------------------------------------------
    def fabrics(self, st, method, path):
        ep_base = FAB + "/Endpoints/"
        zone_base = FAB + "/Zones/"
        if method == "GET" and path == "/redfish/v1/Fabrics":
            return self.reply(200, {
                "@odata.id": path, "Name": "Fabrics",
                "@odata.type": "#FabricCollection.FabricCollection",
                "Members": [{"@odata.id": FAB}], "Members@odata.count": 1})
        if method == "GET" and path == FAB:
            return self.reply(200, {
                "@odata.id": FAB, "@odata.type": "#Fabric.v1_3_0.Fabric",
                "Id": FABRIC, "Name": "PCIe fabric", "FabricType": "PCIe",
                "MaxZones": len(ZONES),
                "Zones": {"@odata.id": FAB + "/Zones"},
                "Endpoints": {"@odata.id": FAB + "/Endpoints"}})
        if method == "GET" and path in (FAB + "/Zones", FAB + "/Endpoints"):
            names = ZONES if path.endswith("Zones") else ENDPOINTS
            return self.reply(200, {
                "@odata.id": path, "Name": path.rsplit("/", 1)[1],
                "Members": [{"@odata.id": path + "/" + n} for n in names],
                "Members@odata.count": len(names)})
        if method == "GET" and path.startswith(ep_base) and \
                path[len(ep_base):] in ENDPOINTS:
            eid = path[len(ep_base):]
            return self.reply(200, {
                "@odata.id": path, "@odata.type": "#Endpoint.v1_8_0.Endpoint",
                "Id": eid, "Name": eid, "EndpointProtocol": "PCIe",
                "ConnectedEntities": [{"EntityType": "Processor",
                                       "EntityRole": "Target"}]})
        if not path.startswith(zone_base):
            return self.missing(method, path)
        zone, _, action = path[len(zone_base):].partition("/")
        if zone not in ZONES:
            return self.missing(method, path)
        zpath = zone_base + zone
        etag = 'W/"z%d"' % st.zone_etag[zone]
        if method == "GET" and not action:
            return self.reply(200, {
                "@odata.id": zpath, "@odata.type": "#Zone.v1_6_0.Zone",
                "Id": zone, "Name": "Host port " + zone, "ZoneType": "Default",
                "@odata.etag": etag,
                "Links": {"Endpoints": [{"@odata.id": ep_base + e}
                                        for e in st.zones[zone]]},
                "Actions": {
                    "#Zone.AddEndpoint": {
                        "target": zpath + "/Actions/Zone.AddEndpoint"},
                    "#Zone.RemoveEndpoint": {
                        "target": zpath + "/Actions/Zone.RemoveEndpoint"}}},
                [("ETag", etag)])
        if method == "PATCH" and not action:
            b = self.body()
            if st.patch_busy and st.patch_busy_skip:
                st.patch_busy_skip -= 1     # this one still goes through
            elif st.patch_busy:
                # a BMC busy with the fabric: refused before it acted
                st.patch_busy -= 1
                st.note("zone %s PATCH: 503" % zone)
                return self.error(503, message(
                    "ServiceTemporarilyUnavailable", "The service is "
                    "temporarily unavailable.  Retry in 1 seconds.",
                    ["1"], "Critical"), headers=[("Retry-After", "1")])
            if st.etag_race and st.etag_race_skip:
                st.etag_race_skip -= 1      # this one still goes through
            elif st.etag_race:
                # another client changed the zone since ours read it
                st.etag_race -= 1
                st.zone_etag[zone] += 1
                etag = 'W/"z%d"' % st.zone_etag[zone]
            want = self.headers.get("If-Match")
            if not want and st.a.require_if_match:
                return self.error(428, message(
                    "PreconditionRequired", "A precondition header or "
                    "annotation is required to change the resource at the "
                    "URI '%s'." % zpath))
            if want and want != etag:
                st.note("zone %s PATCH refused: If-Match %s, ETag %s" %
                        (zone, want, etag))
                return self.error(412, message(
                    "PreconditionFailed", "The ETag supplied did not match "
                    "the ETag required to change this resource."))
            eps = b.get("Links", {}).get("Endpoints") \
                if isinstance(b, dict) and isinstance(b.get("Links"), dict) \
                else None
            if not isinstance(eps, list):
                return self.error(400, message(
                    "MalformedJSON", "The request body submitted was "
                    "malformed JSON."))
            new = []
            for e in eps:
                eid = self.endpoint_of(e)
                if eid is None:
                    return self.bad_endpoint(e)
                if eid not in new:
                    new.append(eid)
            for eid in new:
                if eid not in st.zones[zone]:
                    if self.in_use(st, zone, eid):
                        return None
            st.zone_change(zone, new, "PATCH")
            return self.reply(204)
        if method == "POST" and action in ("Actions/Zone.AddEndpoint",
                                           "Actions/Zone.RemoveEndpoint"):
            b = self.body() or {}
            want = b.get("ZoneETag")
            if want and want != etag:
                return self.error(412, message(
                    "PreconditionFailed", "The ETag supplied did not match "
                    "the ETag required to change this resource."))
            eid = self.endpoint_of(b.get("Endpoint"))
            if eid is None:
                return self.bad_endpoint(b.get("Endpoint"))
            cur = list(st.zones[zone])
            if action.endswith("AddEndpoint"):
                if eid not in cur:
                    if self.in_use(st, zone, eid):
                        return None
                    cur.append(eid)
                st.zone_change(zone, cur, "AddEndpoint " + eid)
            else:
                if eid in cur:
                    cur.remove(eid)
                st.zone_change(zone, cur, "RemoveEndpoint " + eid)
            return self.reply(204)
        return self.missing(method, path)

    @staticmethod
    def endpoint_of(link):
        """the Id of an endpoint link of this fabric, or None"""
        ep = link.get("@odata.id") if isinstance(link, dict) else None
        base = FAB + "/Endpoints/"
        if isinstance(ep, str) and ep.rstrip("/").startswith(base):
            eid = ep.rstrip("/")[len(base):]
            if eid in ENDPOINTS:
                return eid
        return None

    def bad_endpoint(self, link):
        v = json.dumps(link)
        return self.error(400, message(
            "ResourceNotFound", "The requested resource of type Endpoint "
            "named '%s' was not found." % v, ["Endpoint", v]))

    def in_use(self, st, zone, eid):
        """a PCIe endpoint is wired to one host port: in another zone it
        cannot be added to this one (True: refused, answered)"""
        for z, eps in st.zones.items():
            if z != zone and eid in eps:
                st.note("zone %s: %s refused, in zone %s" % (zone, eid, z))
                self.error(400, message(
                    "ResourceInUse", "The change to the requested resource "
                    "failed because the resource is in use or in "
                    "transition.", sev="Critical"))
                return True
        return False

    def missing(self, method, path):
        return self.error(404 if method == "GET" else 405, message(
            "ResourceMissingAtURI", "The resource at the URI '%s' was not "
            "found." % path, [path]))

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")

    def do_DELETE(self):
        self.handle_any("DELETE")


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client refusing our certificate (the wrong-CA tests) is no
        # fault of the simulator: one line, not a traceback
        e = sys.exc_info()[1]
        if isinstance(e, (ssl.SSLError, ConnectionError)):
            sys.stderr.write("redfish-bmc: %s: %s\n" % (client_address, e))
            return
        super().handle_error(request, client_address)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", help="write the port chosen here")
    ap.add_argument("--user", default="admin")
    ap.add_argument("--password", required=True)
    ap.add_argument("--no-sessions", action="store_true",
                    help="no SessionService: HTTP Basic only")
    ap.add_argument("--no-settings", action="store_true",
                    help="a Bios without @Redfish.Settings (read-only)")
    ap.add_argument("--not-redfish", action="store_true",
                    help="/redfish/v1 answers JSON that is not a "
                    "ServiceRoot")
    ap.add_argument("--require-if-match", action="store_true",
                    help="refuse a Settings or zone PATCH without If-Match "
                    "(428)")
    ap.add_argument("--task", type=int, default=0,
                    help="a reset answers 202 and its TaskMonitor 202 "
                    "this many times before it is done")
    ap.add_argument("--current", choices=sorted(CODES),
                    help="the topology attribute's value at start")
    ap.add_argument("--current-zones", choices=sorted(CODES),
                    help="the zones' wiring at start (default Balance)")
    ap.add_argument("--form", choices=["bios", "zones"], default="bios",
                    help="which the --state file follows: the Bios "
                    "attribute (applied at reset) or the zones (online)")
    ap.add_argument("--state")
    ap.add_argument("--log")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", a.port), Handler)
    srv.st = State(a)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True,
                                 do_handshake_on_connect=False)
    if a.port_file:
        with open(a.port_file + ".tmp", "w", encoding="utf-8") as f:
            f.write("%d\n" % srv.server_address[1])
        os.replace(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
