# python-gnupg: the flows of python-gnupg's own test suite (test_gnupg.py)
# that the other scenarios leave out: DSA keys with Elgamal subkeys and a
# comment in parentheses, an RSA 2048 key alone that encrypts, a DSA
# signing subkey added with add_subkey and deleted alone ("FPR!"), two
# armored detached signatures in one file, deleting a public key whose secret key is there, scan_keys
# (--import --dry-run), export after import giving back the bytes
# imported, and the keyring named as GPG(keyring=HOME/pubring.kbx).
. "$CLIENTS/lib.sh"
export PUBLIC_ASC="$CLIENTS/../status/public.asc"
exec "$PYTHON" - <<'PY'
import base64, os, re, gnupg
home, binary = os.environ["GNUPGHOME"], os.environ["GPG"]
# As the suite's setUp: gpg makes its keys fast (and weak) with
# --debug-quick-random, which pgpstream accepts and ignores.
g = gnupg.GPG(gnupghome=home, gpgbinary=binary, options=["--debug-quick-random"])

def dsa_key(first, last, passphrase, with_subkey=True):
    params = {"Key-Type": "DSA", "Key-Length": 1024, "Expire-Date": 0,
              "Name-Comment": "A test user (insecure!)",
              "Name-Real": "%s %s" % (first, last),
              "Name-Email": ("%s.%s@example.org" % (first, last)).lower(),
              "Passphrase": passphrase}
    if with_subkey:
        params["Subkey-Type"] = "ELG-E"
        params["Subkey-Length"] = 2048
    k = g.gen_key(g.gen_key_input(**params))
    assert k.returncode == 0 and k.fingerprint, (k.status, k.stderr)
    return k.fingerprint

andrew = dsa_key("Andrew", "Able", "aable")
barbara = dsa_key("Barbara", "Brown", "bbrown")
keys = {k["fingerprint"]: k for k in g.list_keys()}
a = keys[andrew]
assert a["algo"] == "17" and a["length"] == "1024", (a["algo"], a["length"])
assert a["uids"] == ["Andrew Able (A test user (insecure!)) <andrew.able@example.org>"], a["uids"]
assert len(a["subkeys"]) == 1 and a["subkeys"][0][1] == "e", a["subkeys"]
sub = keys[andrew]["subkey_info"][a["subkeys"][0][0]]
assert sub["algo"] == "16" and sub["length"] == "2048", sub

# Encryption to the Elgamal subkey, and back.
e = g.encrypt("to andrew\n", andrew)
assert e.ok, (e.status, e.stderr)
d = g.decrypt(str(e), passphrase="aable")
assert d.ok and str(d) == "to andrew\n", (d.status, d.stderr)

# gen_key_input's default: an RSA 2048 key alone, which encrypts too.
rsa = g.gen_key(g.gen_key_input(name_email="user1@test", passphrase="pp1"))
assert rsa.returncode == 0 and rsa.fingerprint, (rsa.status, rsa.stderr)
r = [k for k in g.list_keys() if k["fingerprint"] == rsa.fingerprint][0]
assert r["algo"] == "1" and r["length"] == "2048" and r["subkeys"] == [], r
e = g.encrypt("to user1\n", [rsa.fingerprint, barbara])
assert e.ok, (e.status, e.stderr)
d = g.decrypt(str(e), passphrase="pp1")
assert d.ok and str(d) == "to user1\n", (d.status, d.stderr)

# A DSA signing subkey on a key made without subkeys; it signs.
charlie = dsa_key("Charlie", "Clark", "123", with_subkey=False)
s = g.add_subkey(charlie, master_passphrase="123", algorithm="dsa", usage="sign", expire=0)
assert s.returncode == 0 and s.fingerprint, (s.status, s.stderr)
c = [k for k in g.list_keys() if k["fingerprint"] == charlie][0]
assert len(c["subkeys"]) == 1 and c["subkeys"][0][2] == s.fingerprint, c["subkeys"]
sig = g.sign(b"signed by the subkey", keyid=s.fingerprint, passphrase="123", detach=True)
assert sig.fingerprint == s.fingerprint, (sig.status, sig.stderr)

# "FPR!" deletes the subkey alone: its secret part, then its public part.
r = g.delete_keys(s.fingerprint, secret=True, passphrase="123", exclamation_mode=True)
assert str(r) == "ok", (str(r), r.stderr)
r = g.delete_keys(s.fingerprint, exclamation_mode=True)
assert str(r) == "ok", (str(r), r.stderr)
c = [k for k in g.list_keys() if k["fingerprint"] == charlie][0]
assert c["subkeys"] == [], c["subkeys"]
assert [k["fingerprint"] for k in g.list_keys(True) if k["fingerprint"] == charlie] == [charlie]

# Two armored detached signatures in one file: both are checked.
data = b"signed data"
sig1 = g.sign(data, keyid=andrew, passphrase="aable", detach=True)
sig2 = g.sign(data, keyid=barbara, passphrase="bbrown", detach=True)
sig3 = g.sign(b"other signed data", keyid=barbara, passphrase="bbrown", detach=True)
with open("two.sig", "wb") as f:
    f.write(sig1.data + sig2.data)
v = g.verify_data("two.sig", data)
assert set(i["fingerprint"] for i in v.sig_info.values()) == {andrew, barbara}, (v.sig_info, v.stderr)
with open("one-bad.sig", "wb") as f:
    f.write(sig1.data + sig3.data)
v = g.verify_data("one-bad.sig", data)
assert set(i["fingerprint"] for i in v.sig_info.values()) == {andrew}, (v.sig_info, v.stderr)
assert "[GNUPG:] BADSIG " + barbara[-16:] in v.stderr, v.stderr

# A public key whose secret key is in the home is not deleted.
r = g.delete_keys(andrew)
assert str(r) == "Must delete secret key first", (str(r), r.stderr)
r = g.delete_keys("0" * 40)
assert str(r) == "No such key", (str(r), r.stderr)

# scan_keys lists what a file holds and imports nothing; export gives
# back the bytes imported, old-format packet headers and all.
pub = os.environ["PUBLIC_ASC"]
scanned = g.scan_keys(pub)
n = len(scanned)
assert n >= 2, scanned
os.mkdir(home + "2", 0o700)
g2 = gnupg.GPG(gnupghome=home + "2", gpgbinary=binary)
assert len(g2.scan_keys(pub)) == n and g2.list_keys() == []
with open(pub) as f:
    armored = f.read()
r = g2.import_keys(armored)
assert r.count == n, (r.count, r.stderr)
fprs = [k["fingerprint"] for k in g2.list_keys()]
assert sorted(fprs) == sorted(k["fingerprint"] for k in scanned), (fprs, scanned)
body = re.search(r"\n\n(.*?)\n=", armored, re.S).group(1)
assert g2.export_keys(fprs, armor=False) == base64.b64decode(body), "export differs from import"

# The home's keyring named with --no-default-keyring --keyring.
g3 = gnupg.GPG(gnupghome=home, gpgbinary=binary, keyring=os.path.join(home, "pubring.kbx"))
assert [k["fingerprint"] for k in g3.list_keys()] == [k["fingerprint"] for k in g.list_keys()]
assert [k["fingerprint"] for k in g3.list_keys(True)] == [k["fingerprint"] for k in g.list_keys(True)]
print("ok")
PY
