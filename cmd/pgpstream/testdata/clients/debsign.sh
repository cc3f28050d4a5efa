# debsign clear-signs a source package's .dsc, fixes its checksums in the
# .changes and clear-signs that; both then verify.
. "$CLIENTS/lib.sh"
genkey 'Alice <alice@example.org>'
FPR=$(fpr alice@example.org)
mkdir pkg
cd pkg
echo 'hello' >hello.txt
tar -cJf hello_1.0.tar.xz hello.txt
size() { stat -c %s "$1"; }
cat >hello_1.0.dsc <<DSC
Format: 3.0 (native)
Source: hello
Binary: hello
Architecture: all
Version: 1.0
Maintainer: Alice <alice@example.org>
Standards-Version: 4.6.2
Checksums-Sha1:
 $(sha1sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) hello_1.0.tar.xz
Checksums-Sha256:
 $(sha256sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) hello_1.0.tar.xz
Files:
 $(md5sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) hello_1.0.tar.xz
DSC
cat >hello_1.0_source.changes <<CHANGES
Format: 1.8
Date: Tue, 01 Dec 2026 10:00:00 +0000
Source: hello
Architecture: source
Version: 1.0
Distribution: unstable
Urgency: medium
Maintainer: Alice <alice@example.org>
Changed-By: Alice <alice@example.org>
Description:
 hello - a greeting
Changes:
 hello (1.0) unstable; urgency=medium
 .
   * Initial release.
Checksums-Sha1:
 $(sha1sum hello_1.0.dsc | cut -d' ' -f1) $(size hello_1.0.dsc) hello_1.0.dsc
 $(sha1sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) hello_1.0.tar.xz
Checksums-Sha256:
 $(sha256sum hello_1.0.dsc | cut -d' ' -f1) $(size hello_1.0.dsc) hello_1.0.dsc
 $(sha256sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) hello_1.0.tar.xz
Files:
 $(md5sum hello_1.0.dsc | cut -d' ' -f1) $(size hello_1.0.dsc) devel optional hello_1.0.dsc
 $(md5sum hello_1.0.tar.xz | cut -d' ' -f1) $(size hello_1.0.tar.xz) devel optional hello_1.0.tar.xz
CHANGES
debsign --no-conf -p"$GPG" -k"$FPR" hello_1.0_source.changes
for f in hello_1.0.dsc hello_1.0_source.changes; do
	head -1 "$f" | grep -qx -- '-----BEGIN PGP SIGNED MESSAGE-----' || fail "$f is not clear-signed"
	gpg --batch --status-fd 1 --verify "$f" >status
	grep -q "^\[GNUPG:\] VALIDSIG $FPR " status || fail "$f does not verify"
done
# The .changes carries the signed .dsc's new checksum.
grep -q "$(sha256sum hello_1.0.dsc | cut -d' ' -f1) $(size hello_1.0.dsc) hello_1.0.dsc" hello_1.0_source.changes || fail 'stale .dsc checksum in .changes'
# A changed line breaks the signature.
sed -i 's/Initial release/Initial RELEASE/' hello_1.0_source.changes
if gpg --batch --verify hello_1.0_source.changes; then fail 'a changed .changes verified'; fi
