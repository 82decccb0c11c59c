"""Confluent's Python client as an independent peer of kadmin-lua's schema codecs.

produce: writes Avro, JSON Schema and Protobuf records with confluent-kafka's serializers (which register the
schemas in the registry under TOPIC-value); consume: reads every record of the three topics with its
deserializers and prints them as one JSON object {topic: [value, ...]}, with the values normalised as
kadmin-lua shows them (decimals as strings, timestamps RFC 3339 UTC in ms, dates YYYY-MM-DD).

Usage: confluent_serde.py produce|consume BOOTSTRAP USER PASSWORD REGISTRY AVRO_TOPIC JSON_TOPIC PROTO_TOPIC [N]
"""
import datetime
import decimal
import json
import sys

from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from google.protobuf import descriptor_pb2, descriptor_pool, timestamp_pb2  # noqa: F401 (registers Timestamp)
from google.protobuf.json_format import MessageToDict
from google.protobuf.message_factory import GetMessageClass
from confluent_kafka.serialization import MessageField, SerializationContext

AVRO = json.dumps({"type": "record", "name": "Payment", "namespace": "shop", "fields": [
    {"name": "id", "type": "string"},
    {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
    {"name": "note", "type": ["null", "string"], "default": None},
    {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID"]}},
    {"name": "at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "day", "type": {"type": "int", "logicalType": "date"}},
    {"name": "tags", "type": {"type": "array", "items": "string"}},
]})
JSON_SCHEMA = json.dumps({"$schema": "http://json-schema.org/draft-07/schema#", "title": "Event", "type": "object",
                          "properties": {"n": {"type": "integer"}, "what": {"type": "string"}},
                          "required": ["n"]})


# The Protobuf schema, built as protoc would from:
#   syntax = "proto3"; package shop; import "google/protobuf/timestamp.proto";
#   message Other { string x = 1; }
#   message Order { enum Status { NEW = 0; PAID = 1; } message Line { string sku = 1; int32 qty = 2; }
#     string id = 1; int64 cents = 2; Status status = 3; repeated Line lines = 4; google.protobuf.Timestamp at = 5; }
# Order is the second message: its records carry the message index path [1].
F = descriptor_pb2.FieldDescriptorProto
fdp = descriptor_pb2.FileDescriptorProto(name="shop/order.proto", package="shop", syntax="proto3",
                                         dependency=["google/protobuf/timestamp.proto"])
fdp.message_type.add(name="Other").field.add(name="x", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
order = fdp.message_type.add(name="Order")
status = order.enum_type.add(name="Status")
status.value.add(name="NEW", number=0)
status.value.add(name="PAID", number=1)
line = order.nested_type.add(name="Line")
line.field.add(name="sku", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
line.field.add(name="qty", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
order.field.add(name="id", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
order.field.add(name="cents", number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
order.field.add(name="status", number=3, type=F.TYPE_ENUM, type_name=".shop.Order.Status", label=F.LABEL_OPTIONAL)
order.field.add(name="lines", number=4, type=F.TYPE_MESSAGE, type_name=".shop.Order.Line", label=F.LABEL_REPEATED)
order.field.add(name="at", number=5, type=F.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp",
                label=F.LABEL_OPTIONAL)
descriptor_pool.Default().Add(fdp)
Order = GetMessageClass(descriptor_pool.Default().FindMessageTypeByName("shop.Order"))

mode, bootstrap, user, password, registry, avro_topic, json_topic, proto_topic = sys.argv[1:9]
conf = {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
        "sasl.username": user, "sasl.password": password}
sr = SchemaRegistryClient({"url": registry})


def normal(v):
    if isinstance(v, dict):
        return {k: normal(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normal(x) for x in v]
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, datetime.datetime):
        v = v.astimezone(datetime.timezone.utc)
        return v.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (v.microsecond // 1000)
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v


if mode == "produce":
    p = Producer(conf)
    avro = AvroSerializer(sr, AVRO)
    js = JSONSerializer(JSON_SCHEMA, sr)
    at = datetime.datetime(2026, 5, 28, 20, 26, 40, 123000, tzinfo=datetime.timezone.utc)
    payments = [
        {"id": "p-1", "amount": decimal.Decimal("19.99"), "note": "refund", "status": "PAID", "at": at,
         "day": datetime.date(2026, 5, 28), "tags": ["a", "b"]},
        {"id": "p-2", "amount": decimal.Decimal("-0.50"), "note": None, "status": "NEW", "at": at,
         "day": datetime.date(1969, 12, 31), "tags": []},
    ]
    for v in payments:
        p.produce(avro_topic, value=avro(v, SerializationContext(avro_topic, MessageField.VALUE)), key=v["id"])
    for v in [{"n": 1, "what": "created"}, {"n": 2}]:
        p.produce(json_topic, value=js(v, SerializationContext(json_topic, MessageField.VALUE)))
    pb = ProtobufSerializer(Order, sr)
    o = Order(id="o-1", cents=1999, status=Order.Status.Value("PAID"), lines=[Order.Line(sku="x", qty=2)])
    o.at.FromJsonString("2026-05-28T20:26:40.123Z")
    for v in [o, Order(id="o-2")]:
        p.produce(proto_topic, value=pb(v, SerializationContext(proto_topic, MessageField.VALUE)))
    if p.flush(30) != 0:
        sys.exit("records not delivered")
elif mode == "consume":
    c = Consumer(dict(conf, **{"group.id": "confluent-serde-" + avro_topic, "auto.offset.reset": "earliest",
                               "enable.auto.commit": False}))
    c.subscribe([avro_topic, json_topic, proto_topic])
    avro = AvroDeserializer(sr)
    js = JSONDeserializer(JSON_SCHEMA)
    pb = ProtobufDeserializer(Order)
    want = int(sys.argv[9])
    out = {avro_topic: [], json_topic: [], proto_topic: []}
    deadline = datetime.datetime.now() + datetime.timedelta(seconds=60)
    while sum(len(x) for x in out.values()) < want and datetime.datetime.now() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        ctx = SerializationContext(m.topic(), MessageField.VALUE)
        if m.topic() == avro_topic:
            v = avro(m.value(), ctx)
        elif m.topic() == json_topic:
            v = js(m.value(), ctx)
        else:
            # Field names as in the .proto file, unset scalars as their zero value, int64 as a number:
            # as kadmin-lua shows a message.
            v = MessageToDict(pb(m.value(), ctx), preserving_proto_field_name=True,
                              always_print_fields_with_no_presence=True)
            v["cents"] = int(v["cents"])
        out[m.topic()].append({"offset": m.offset(), "value": normal(v)})
    c.close()
    for k in out:
        out[k].sort(key=lambda r: r["offset"])
    print(json.dumps(out))
else:
    sys.exit("unknown mode " + mode)
