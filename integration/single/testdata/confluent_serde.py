"""Confluent's Python client as an independent peer of kadmin-lua's schema codecs.

produce: writes Avro and JSON Schema records with confluent-kafka's serializers (which register the
schemas in the registry under TOPIC-value); consume: reads every record of both topics with its
deserializers and prints them as one JSON object {topic: [value, ...]}, with the values normalised as
kadmin-lua shows them (decimals as strings, timestamps RFC 3339 UTC in ms, dates YYYY-MM-DD).

Usage: confluent_serde.py produce|consume BOOTSTRAP USER PASSWORD REGISTRY AVRO_TOPIC JSON_TOPIC
"""
import datetime
import decimal
import json
import sys

from confluent_kafka import Consumer, Producer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
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

mode, bootstrap, user, password, registry, avro_topic, json_topic = sys.argv[1:8]
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
    if p.flush(30) != 0:
        sys.exit("records not delivered")
elif mode == "consume":
    c = Consumer(dict(conf, **{"group.id": "confluent-serde-" + avro_topic, "auto.offset.reset": "earliest",
                               "enable.auto.commit": False}))
    c.subscribe([avro_topic, json_topic])
    avro = AvroDeserializer(sr)
    js = JSONDeserializer(JSON_SCHEMA)
    want = int(sys.argv[8])
    out = {avro_topic: [], json_topic: []}
    deadline = datetime.datetime.now() + datetime.timedelta(seconds=60)
    while sum(len(x) for x in out.values()) < want and datetime.datetime.now() < deadline:
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        ctx = SerializationContext(m.topic(), MessageField.VALUE)
        v = avro(m.value(), ctx) if m.topic() == avro_topic else js(m.value(), ctx)
        out[m.topic()].append({"offset": m.offset(), "value": normal(v)})
    c.close()
    for k in out:
        out[k].sort(key=lambda r: r["offset"])
    print(json.dumps(out))
else:
    sys.exit("unknown mode " + mode)
