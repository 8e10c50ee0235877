#!/usr/bin/python3
"""A gRPC client that knows nothing of the server's protos: it learns them through server
reflection, builds them in protobuf's C++ descriptor pool (which validates every descriptor the
way grpcurl's Go pool does: map entries, imports, names), and calls methods with JSON.

  reflect_client.py ADDRESS [--reflection v1|v1alpha] list
  reflect_client.py ADDRESS describe SYMBOL            (a service or a message, as JSON)
  reflect_client.py ADDRESS call SERVICE/METHOD JSON    (unary: prints the answer as JSON)
  reflect_client.py ADDRESS stream SERVICE/METHOD JSON [--max N]   (server streaming: one JSON line per message)

Needs only Debian's python3-grpcio, python3-protobuf, grpc-proto and protoc with the grpc python
plugin (scripts/ensure-client-tools.sh installs them). The reflection stubs are generated from
/usr/share/grpc-proto at start, into a folder whose modules do not shadow the grpc package.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

GRPC_PROTO = "/usr/share/grpc-proto"


def reflection_stubs(version):
    """Generates and imports the reflection messages and stub of one reflection version."""
    out = tempfile.mkdtemp(prefix="reflect-stubs-")
    pkg = os.path.join(out, "reflect_stubs_" + version)
    os.makedirs(pkg)
    with open(os.path.join(GRPC_PROTO, "grpc/reflection", version, "reflection.proto")) as src:
        text = src.read()
    with open(os.path.join(pkg, "reflection.proto"), "w") as dst:
        dst.write(text)
    subprocess.run(
        ["protoc", "-I" + out, "--python_out=" + out, "--grpc_python_out=" + out,
         "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
         os.path.join(pkg, "reflection.proto")],
        check=True,
    )
    sys.path.insert(0, out)
    name = "reflect_stubs_" + version
    return importlib.import_module(name + ".reflection_pb2"), importlib.import_module(name + ".reflection_pb2_grpc")


class ReflectedPool:
    """A descriptor pool filled on demand from the server's reflection answers."""

    def __init__(self, channel, version):
        self.pb2, pb2_grpc = reflection_stubs(version)
        self.stub = pb2_grpc.ServerReflectionStub(channel)
        self.pool = descriptor_pool.DescriptorPool()
        self.factory = message_factory.MessageFactory(self.pool)
        self.received = {}
        self.added = set()

    def ask(self, **query):
        answer = next(self.stub.ServerReflectionInfo(iter([self.pb2.ServerReflectionRequest(**query)])))
        if answer.HasField("error_response"):
            raise SystemExit("reflection: %s (code %d)" % (answer.error_response.error_message, answer.error_response.error_code))
        return answer

    def services(self):
        return [s.name for s in self.ask(list_services="").list_services_response.service]

    def _take(self, answer):
        for raw in answer.file_descriptor_response.file_descriptor_proto:
            fdp = descriptor_pb2.FileDescriptorProto.FromString(raw)
            self.received.setdefault(fdp.name, fdp)

    def _add(self, name):
        """Adds a file after its imports; the C++ pool refuses an invalid descriptor here."""
        if name in self.added:
            return
        if name not in self.received:
            self._take(self.ask(file_by_filename=name))
        fdp = self.received[name]
        for dep in fdp.dependency:
            self._add(dep)
        self.pool.Add(fdp)
        self.added.add(name)

    def load_symbol(self, symbol):
        answer = self.ask(file_containing_symbol=symbol)
        self._take(answer)
        self._add(descriptor_pb2.FileDescriptorProto.FromString(answer.file_descriptor_response.file_descriptor_proto[0]).name)

    def message_class(self, full_name):
        return self.factory.GetPrototype(self.pool.FindMessageTypeByName(full_name))


def describe(rp, symbol):
    rp.load_symbol(symbol)
    try:
        service = rp.pool.FindServiceByName(symbol)
    except KeyError:
        service = None
    if service is not None:
        return {
            "service": service.full_name,
            "file": service.file.name,
            "methods": [
                {"name": m.name, "input": m.input_type.full_name, "output": m.output_type.full_name,
                 "clientStreaming": getattr(m, "client_streaming", False), "serverStreaming": getattr(m, "server_streaming", False)}
                for m in service.methods
            ],
        }
    message = rp.pool.FindMessageTypeByName(symbol)
    fields = []
    for f in message.fields:
        entry = f.message_type if f.type == f.TYPE_MESSAGE else None
        is_map = entry is not None and entry.GetOptions().map_entry
        fields.append({"name": f.name, "number": f.number, "map": bool(is_map),
                       "type": entry.full_name if entry is not None else f.type, "repeated": f.label == f.LABEL_REPEATED})
    return {"message": message.full_name, "file": message.file.name, "fields": fields}


def method_of(rp, path):
    service_name, method_name = path.rsplit("/", 1)
    rp.load_symbol(service_name)
    method = rp.pool.FindServiceByName(service_name).FindMethodByName(method_name)
    return method, rp.message_class(method.input_type.full_name), rp.message_class(method.output_type.full_name)


def to_json(msg):
    return json_format.MessageToJson(msg, indent=None, preserving_proto_field_name=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("address")
    ap.add_argument("--reflection", default="v1", choices=["v1", "v1alpha"])
    ap.add_argument("command", choices=["list", "describe", "call", "stream"])
    ap.add_argument("target", nargs="?")
    ap.add_argument("body", nargs="?", default="{}")
    ap.add_argument("--max", type=int, default=0)
    args = ap.parse_args()
    channel = grpc.insecure_channel(args.address)
    rp = ReflectedPool(channel, args.reflection)
    if args.command == "list":
        print("\n".join(rp.services()))
    elif args.command == "describe":
        print(json.dumps(describe(rp, args.target)))
    else:
        method, req_cls, res_cls = method_of(rp, args.target)
        request = json_format.Parse(args.body, req_cls())
        path = "/%s/%s" % (method.containing_service.full_name, method.name)
        if args.command == "call":
            call = channel.unary_unary(path, request_serializer=req_cls.SerializeToString, response_deserializer=res_cls.FromString)
            print(to_json(call(request, timeout=60)))
        else:
            call = channel.unary_stream(path, request_serializer=req_cls.SerializeToString, response_deserializer=res_cls.FromString)
            seen = 0
            for event in call(request, timeout=120):
                print(to_json(event), flush=True)
                seen += 1
                if args.max and seen >= args.max:
                    break


if __name__ == "__main__":
    try:
        main()
    except grpc.RpcError as err:
        print("rpc error: %s: %s" % (err.code().name, err.details()), file=sys.stderr)
        sys.exit(1)
