#!/usr/bin/env python3
"""Writes the seed corpus of each fuzz target (Fuzz/corpus/<Target>/) from the tests' real inputs: the expressions of
the expression tests and the example plugins, the input parser's cases, the ED807 fixtures and the bundled directory,
the canonical document of the encoding tests, a 'none' attestation like the passkey tests' software authenticator
makes, the worker frames of a real session, and descriptors of the example plugins in all three forms.
Run from the repository's root: python3 Fuzz/seeds.py (it replaces the seeds it writes, keeps any other file)."""
import hashlib, json, os, re, struct

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Fuzz", "corpus")


def write(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path):
    with open(os.path.join(ROOT, path), "rb") as f:
        return f.read()


# --- expressions: byte 0 < 0x80 compiles the rest; byte 0 >= 0x80 parses it as an input of a type.
literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
expressions = set()
for path in ["Tests/RBSExpressionsTests/CompiledExpressionTests.swift", "Tests/RBSExpressionsTests/ExpressionReferenceTests.swift",
             "Tests/RBSExpressionsTests/FormModelTests.swift", "Tests/RBSExpressionsTests/ForeignFunctionTests.swift"]:
    for text in literal.findall(read(path).decode()):
        if re.search(r"\$|\bAND\b|\bOR\b|==|MATCHES|LIKE|BETWEEN|\bIN\b|len\(|BEGINSWITH|CONTAINS", text):
            expressions.add(text.replace('\\"', '"').replace("\\\\", "\\"))
for folder, _, files in os.walk(os.path.join(ROOT, "Examples")):
    if "target" in folder or ".build" in folder:
        continue
    for file in files:
        if file.endswith((".c", ".swift", ".rs")):
            source = open(os.path.join(folder, file), encoding="utf-8", errors="replace").read()
            for match in re.finditer(r'(?:show_if|valid_if|filter|showIf|validIf)\s*[=:]\s*(?:Some\()?c?"((?:[^"\\\n]|\\.)*)"', source):
                expressions.add(match.group(1).replace('\\"', '"'))
for index, text in enumerate(sorted(expressions)):
    write("FuzzExpressions", "expr-%03d" % index, b"\x00" + text.encode())
inputs = ["1500.50", "1 500,50", "1,500", "0.001", "40702810900000012345", "2026-11-26", "26.11.2026", "  ", "Иван",
          "12a4", "-5", "1e5", "999999999999999999999.99"]
for index, text in enumerate(inputs):
    for kind in range(6):
        write("FuzzExpressions", "input-%02d-%d" % (index, kind), bytes([0x80 | 0x20 | kind]) + text.encode())

# --- ED807: the fixtures and the bundled extract.
write("FuzzED807", "sample.xml", read("Tests/Fixtures/ed807/ED807-sample.xml"))
write("FuzzED807", "malformed.xml", read("Tests/Fixtures/ed807/ED807-malformed.xml"))
write("FuzzED807", "extract.xml", read("Sources/RBSCore/Resources/ED807-extract.xml"))
sample = read("Tests/Fixtures/ed807/ED807-sample.xml").decode("cp1251")  # as published: windows-1251
write("FuzzED807", "sample-utf8.xml", sample.replace('encoding="windows-1251"', 'encoding="UTF-8"').encode())

# --- canonical documents: the golden document of CanonicalEncodingTests and variants of it.
golden = ("RBSDOC1\noperation=payment.domestic\nplugin=ru.example.payments\nplugin_version=1.2.0\n"
          "created_at=2025-03-01T09:30:00.250Z\nnonce=000102030405060708090a0b0c0d0e0f\nkey_id=0123456789abcdef\n"
          "fields=4\naccount=40702810900000012345\namount=1500.00\ncurrency=RUB\npurpose=Invoice 7\\nline 2 a\\=b\n")
write("FuzzCanonicalDocument", "golden", golden)
write("FuzzCanonicalDocument", "no-fields", golden.split("fields=4")[0] + "fields=0\n")
write("FuzzCanonicalDocument", "cyrillic", golden.replace("Invoice 7", "Оплата по счёту №7\\tот 01.03"))

# --- passkeys: CBOR as a 'none' attestation holds it (Ed25519 and ES256 COSE keys), and bare authenticator data.
def cbor_head(major, n):
    if n < 24: return bytes([major << 5 | n])
    if n < 256: return bytes([major << 5 | 24, n])
    if n < 65536: return bytes([major << 5 | 25]) + struct.pack(">H", n)
    if n < 2**32: return bytes([major << 5 | 26]) + struct.pack(">I", n)
    return bytes([major << 5 | 27]) + struct.pack(">Q", n)

def cbor(value):
    if isinstance(value, bool): return bytes([0xF5 if value else 0xF4])
    if value is None: return bytes([0xF6])
    if isinstance(value, int): return cbor_head(0, value) if value >= 0 else cbor_head(1, -1 - value)
    if isinstance(value, bytes): return cbor_head(2, len(value)) + value
    if isinstance(value, str): return cbor_head(3, len(value.encode())) + value.encode()
    if isinstance(value, list): return cbor_head(4, len(value)) + b"".join(cbor(v) for v in value)
    if isinstance(value, dict): return cbor_head(5, len(value)) + b"".join(cbor(k) + cbor(v) for k, v in value.items())
    raise TypeError(value)

rp = hashlib.sha256(b"bank.example").digest()
credential = bytes(range(16))
ed_key = {1: 1, 3: -8, -1: 6, -2: hashlib.sha256(b"ed25519").digest()}
# The P-256 generator point: a valid public key.
gx = bytes.fromhex("6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296")
gy = bytes.fromhex("4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5")
es_key = {1: 2, 3: -7, -1: 1, -2: gx, -3: gy}
for name, key in [("ed25519", ed_key), ("es256", es_key)]:
    auth = rp + bytes([0x45]) + struct.pack(">I", 1) + bytes(16) + struct.pack(">H", len(credential)) + credential + cbor(key)
    write("FuzzPasskeyCBOR", "attestation-" + name, cbor({"fmt": "none", "attStmt": {}, "authData": auth}))
    write("FuzzPasskeyCBOR", "cose-" + name, cbor(key))
write("FuzzPasskeyCBOR", "authdata-assertion", rp + bytes([0x05]) + struct.pack(">I", 7))
write("FuzzPasskeyCBOR", "cbor-kinds", cbor([0, 23, 24, 255, 256, 65536, 2**32, -1, -25, b"", "", [], {}, True, False, None]))

# --- worker wire: frames as a worker sends them (length u32 LE of kind + payload).
def frame(kind, payload=b""):
    return struct.pack("<I", 1 + len(payload)) + bytes([kind]) + payload

def u32(n): return struct.pack("<I", n)
def i32(n): return struct.pack("<i", n)
def i64(n): return struct.pack("<q", n)
def data(b): return u32(len(b)) + b
def string(s): return data(s.encode())
def optional(s): return b"\x00" if s is None else b"\x01" + string(s)

manifest = {"id": "ru.example.fuzz", "name": "Fuzz", "version": "1.0.0", "vendor": "Example", "abi": {"major": 1, "minor": 1, "patch": 0},
            "operations": [{"id": "pay.fuzz", "title": "Pay", "category": "Payments", "functions": [], "observesValues": True,
                            "hasAction": False, "documentLabels": [],
                            "atoms": [{"id": "amount", "kind": 2, "inputType": 3, "flags": 1, "minLength": 0, "maxLength": 0,
                                       "caption": "Amount", "currency": "RUB", "validIf": "amount > 0", "errorText": "more than 0",
                                       "options": []}]}]}
ready = frame(20, data(json.dumps(manifest).encode()) + u32(2) + string("rbs.state/1") + string("rbs.log/1") + optional(None))
write("FuzzWorkerWire", "ready", ready)
write("FuzzWorkerWire", "start-failed", frame(21, string("init() refused")))
session = (ready + frame(46) + frame(47, u32(0)) + frame(48, string("40817810099910004312")) + frame(49, string("044525225"))
           + frame(50) + frame(51) + frame(45, u32(2) + optional("plugin") + string("hello"))
           + frame(40, u32(1) + string("amount")) + frame(41, u32(1) + string("amount") + u32(3) + data(b"100.00"))
           + frame(42, u32(1) + string("amount") + string("Сумма")) + frame(43, u32(1) + string("amount") + b"\x01")
           + frame(44, u32(1) + b"\x01" + string("amount") + b"\x01" + string("too much")))
write("FuzzWorkerWire", "session", session)
write("FuzzWorkerWire", "replies", ready + frame(22, b"\x03" + string("1500.50")) + frame(22, b"\x04" + string("text"))
      + frame(22, i32(0) + u32(2) + string("amount") + string("100.00") + string("currency") + string("RUB") + optional(None))
      + frame(22, u32(6) + data(b"100.00") + data(b"RUB")) + frame(22, b"\x02" + i64(-5)))

# --- descriptors: mode 1 (worker manifest JSON), mode 0 (C descriptor bytes, FuzzInput's layout).
write("FuzzDescriptors", "manifest.json", b"\x01" + json.dumps(manifest).encode())
def field(b):
    b = b.encode() if isinstance(b, str) else b
    return bytes([len(b)]) + b

def atom(present, ident, kind, input_type, flags, caption, hint=None, currency=None, show_if=None, valid_if=None,
         error_text=None, filter=None, default=None, options=()):
    bits = sum(bit for bit, value in [(1, hint), (2, currency), (4, show_if), (8, valid_if), (16, error_text), (32, filter), (64, default)]
               if value is not None) | (128 if options else 0)
    out = bytes([bits]) + field(ident) + bytes([kind, input_type, flags, 0, 0]) + field(caption)
    for value in [hint, currency, show_if, valid_if, error_text, filter, default]:
        out += field(value or "")
    if options:
        out += bytes([len(options)]) + b"".join(field(v) + field(t) for v, t in options)
    return out

atoms = [atom(0, "from", 4, 0, 1, "Списать со счёта", filter="NOT blocked"),
         atom(0, "to", 4, 0, 1, "Зачислить на счёт", filter="number != $from"),
         atom(0, "amount", 2, 3, 1, "Сумма", currency="RUB", valid_if="amount > 0", error_text="Сумма больше нуля"),
         atom(0, "kind", 5, 0, 0, "Вид", options=[("1", "Обычный"), ("2", "Срочный")]),
         atom(0, "urgent", 2, 0, 0, "Срочно", show_if="kind == 2"),
         atom(0, "send", 6, 0, 4, "Отправить")]
operation = bytes([0x08]) + field("transfer.own") + field("Перевод между своими счетами") + field("Переводы") + bytes([len(atoms)]) + b"".join(atoms)
operation += bytes([1]) + field("fee") + field("transfer_fee") + field("double(double)") + bytes([0])
entry = bytes([0, 0x08 | 0x10 | 0x20]) + field("ru.example.transfer") + field("Transfers") + field("1.0.0") + field("Example Bank") + field("")
entry += bytes([1]) + operation
entry += bytes([1]) + field("rbs.abi/1.1")
entry += bytes([2]) + bytes([1]) + field("transfer.own") + field("amount") + bytes([1]) + field("Сумма") + bytes([2]) + field("transfer.own") + field("from") + bytes([4]) + field("") + field("from")
write("FuzzDescriptors", "c-transfer-own", entry)

# --- mode 3: the scan cache file (PluginCacheCodec: magic, LEB128 integers, length-prefixed strings).
def leb(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        out.append(low | (0x80 if n else 0))
        if not n:
            return bytes(out)

def lstr(s):
    b = s.encode()
    return leb(len(b)) + b

def lopt(s):
    return leb(0) if s is None else leb(1) + lstr(s)

cache = b"RBSCACHE5\n" + lstr("1.1.0") + leb(2)
cache += lstr("/plugins/broken.so") + leb(123) + leb(1700000000) + leb(1700000001) + leb(42) + lstr("ab" * 32)
cache += leb(0) + lstr(json.dumps({"crashed": {"signal": 11}}))
cache += lstr("/plugins/transfer-own.so") + leb(16384) + leb(1700000000) + leb(1700000000) + leb(43) + lstr("cd" * 32) + leb(1)
cache += lstr("ru.example.transfers") + lstr("Transfers") + lstr("1.0.0") + lstr("Example Bank") + lopt("Own accounts")
cache += leb(1) + leb(1) + leb(0) + leb(1)  # abi 1.1.0, one operation
cache += lstr("transfer.own") + lstr("Перевод") + lstr("Переводы") + leb(1) + leb(2)
cache += lstr("from") + leb(4) + leb(0) + leb(1) + leb(0) + leb(0) + lstr("Со счёта")
cache += lopt(None) + lopt(None) + lopt(None) + lopt(None) + lopt(None) + lopt("NOT blocked") + lopt(None) + leb(0)
cache += lstr("amount") + leb(2) + leb(3) + leb(1) + leb(0) + leb(0) + lstr("Сумма")
cache += lopt(None) + lopt("RUB") + lopt("from != NIL") + lopt("amount > 0") + lopt("больше нуля") + lopt(None) + lopt(None) + leb(0)
cache += leb(0) + leb(1) + lstr("amount") + lopt("Сумма") + leb(1) + lopt("amount")
cache += leb(1) + lstr("rbs.state/1") + leb(1) + lstr("/plugins/transfer-own.so")
write("FuzzDescriptors", "cache", b"\x03" + cache)
