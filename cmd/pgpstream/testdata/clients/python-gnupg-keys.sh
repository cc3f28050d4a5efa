# python-gnupg: gen_key (a --gen-key --batch parameter file), list_keys,
# export_keys, import_keys, delete_keys.
. "$CLIENTS/lib.sh"
exec "$PYTHON" - <<'PY'
import os, gnupg
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
g = gnupg.GPG(gnupghome=home, gpgbinary=binary)
print("version", g.version)
assert g.version and g.version[0] >= 2, g.version
inp = g.gen_key_input(key_type="EDDSA", key_curve="ed25519", key_usage="sign",
                      subkey_type="ECDH", subkey_curve="cv25519", subkey_usage="encrypt",
                      name_real="Alice", name_email="alice@example.org", name_comment="test",
                      expire_date=0, no_protection=True)
print(inp)
key = g.gen_key(inp)
assert key.fingerprint, ("gen_key", key.status, key.stderr)
fpr = key.fingerprint
pub = g.list_keys()
assert len(pub) == 1, pub
k = pub[0]
assert k["fingerprint"] == fpr, k
assert k["uids"] == ["Alice (test) <alice@example.org>"], k["uids"]
assert k["algo"] == "22" and k["length"] == "255", k
assert k["trust"] == "u" and k["ownertrust"] == "u", k
assert len(k["subkeys"]) == 1 and k["subkeys"][0][1] == "e", k["subkeys"]
assert [x["fingerprint"] for x in g.list_keys(True)] == [fpr]
assert g.list_keys(keys="alice@example.org")[0]["fingerprint"] == fpr
assert g.list_keys(keys="nobody@example.org") == []

armored = g.export_keys(fpr)
assert armored.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----"), armored[:80]
binary_pub = g.export_keys(fpr, armor=False)
assert isinstance(binary_pub, bytes) and binary_pub[0] & 0x80, binary_pub[:4]
secret = g.export_keys(fpr, secret=True, expect_passphrase=False)
assert secret.startswith("-----BEGIN PGP PRIVATE KEY BLOCK-----"), secret[:80]

# A second home gets the public key, then the secret one.
os.mkdir(home + "2", 0o700)
g2 = gnupg.GPG(gnupghome=home + "2", gpgbinary=binary)
r = g2.import_keys(armored)
assert r.count == 1 and r.imported == 1 and r.fingerprints == [fpr], (r.results, r.stderr)
assert r.results[0]["ok"] == "1", r.results
r = g2.import_keys(armored)
assert r.count == 1 and r.unchanged == 1, (r.count, r.unchanged, r.stderr)
k2 = g2.list_keys()[0]
assert k2["fingerprint"] == fpr and k2["trust"] in ("-", "o", "q"), k2
# There the key is of unknown validity: encrypting to it needs
# always_trust, or trust given with trust_keys (--import-ownertrust).
e = g2.encrypt("x", fpr)
assert not e.ok and e.status == "invalid recipient", (e.status, e.stderr)
e = g2.encrypt("x", fpr, always_trust=True)
assert e.ok, (e.status, e.stderr)
g2.trust_keys(fpr, "TRUST_ULTIMATE")
assert g2.list_keys()[0]["ownertrust"] == "u", g2.list_keys()[0]
e = g2.encrypt("x", fpr)
assert e.ok, (e.status, e.stderr)
g2.trust_keys(fpr, "TRUST_UNDEFINED")
r = g2.import_keys(secret)
assert r.sec_read == 1 and r.sec_imported == 1, (r.sec_read, r.sec_imported, r.stderr)
assert [x["fingerprint"] for x in g2.list_keys(True)] == [fpr]
r = g2.delete_keys(fpr, secret=True, expect_passphrase=False)
assert str(r) == "ok", (str(r), r.stderr)
assert g2.list_keys(True) == []
r = g2.delete_keys(fpr)
assert str(r) == "ok", (str(r), r.stderr)
assert g2.list_keys() == []
print("ok")
PY
