package filter

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/packet"
)

// sigEvents keeps the signatures reported.
type sigEvents struct {
	nopEvents
	sigs []SignatureResult
}

func (e *sigEvents) Signature(r SignatureResult) { e.sigs = append(e.sigs, r) }

// testMessages are messages of every kind, made once per test.
type testMessages struct {
	keys                      entityKeys
	clearOne, clearTwo, clear []byte // cleartext signed "one", "two", and "two" tampered
	signedA, signedB          []byte // one-pass signed, binary
	signedArmored             []byte
	encA, encB, encArmored    []byte
}

func makeMessages(t *testing.T) *testMessages {
	e := testEntity(t, "ed25519")
	s := []Signer{signerOf(e, packet.HashSHA256)}
	clearSign := func(text string) []byte {
		var b bytes.Buffer
		if _, err := ClearSign(strings.NewReader(text), &b, SignOptions{Signers: s}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	sign := func(text string, armored bool) []byte {
		var b bytes.Buffer
		if _, err := Sign(strings.NewReader(text), &b, SignOptions{Signers: s, Armor: armored}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	m := &testMessages{keys: entityKeys{e}, clearOne: clearSign("one\n"), clearTwo: clearSign("two\n")}
	m.clear = bytes.Replace(m.clearTwo, []byte("\ntwo\n"), []byte("\nTwo\n"), 1)
	m.signedA, m.signedB, m.signedArmored = sign("A", false), sign("B", false), sign("armored", true)
	m.encA, m.encB = encryptSym(t, []byte("secret A"), EncryptOptions{}), encryptSym(t, []byte("secret B"), EncryptOptions{})
	m.encArmored = encryptSym(t, []byte("secret armored"), EncryptOptions{Armor: true})
	return m
}

func (m *testMessages) options(ev Events) DecryptOptions {
	return DecryptOptions{Keys: passKeys{[]byte("pw")}, Signers: m.keys, Events: ev}
}

// armored wraps binary packets in one armored block.
func armored(t *testing.T, data []byte) []byte {
	var b bytes.Buffer
	w := armor.NewWriter(&b, armor.Message, nil)
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// indeterminate rewraps a message in a ZLIB compressed packet of
// indeterminate length, as gpg -s writes it.
func indeterminate(t *testing.T, inner []byte) []byte {
	var c bytes.Buffer
	c.WriteByte(byte(packet.CompressZLIB))
	zw, _ := NewCompressor(&c, packet.CompressZLIB, 6)
	zw.Write(inner)
	zw.Close()
	return append([]byte{0x80 | byte(packet.TagCompressed)<<2 | 3}, c.Bytes()...)
}

// TestDecryptOneMessage: whatever follows the message fails Decrypt with
// an error wrapping ErrTrailingData, found before any signature is
// reported and before a cleartext message's text is written, and what
// follows a message only in form (blank lines, text around armor) does
// not.
func TestDecryptOneMessage(t *testing.T) {
	m := makeMessages(t)
	ops := packets(t, m.signedA)
	for _, c := range []struct {
		name    string
		in      []byte
		message bool // what follows starts another message
	}{
		{"cleartext, tampered cleartext", slices.Concat(m.clearOne, m.clear), true},
		{"cleartext, good cleartext", slices.Concat(m.clearOne, []byte("\n"), m.clearTwo), true},
		{"cleartext, unsigned text", slices.Concat(m.clearOne, []byte("\nApproved.\n")), false},
		{"cleartext, armored signed message", slices.Concat(m.clearOne, m.signedArmored), true},
		{"cleartext, armored encrypted message", slices.Concat(m.clearOne, m.encArmored), true},
		{"cleartext, key block", slices.Concat(m.clearOne, []byte("-----BEGIN PGP PUBLIC KEY BLOCK-----\n")), false},
		{"signed, signed", slices.Concat(m.signedA, m.signedB), true},
		{"signed, one signature more", slices.Concat(m.signedA, ops[2]), true},
		{"signed, literal", slices.Concat(m.signedA, ops[1]), true},
		{"literal, one-pass signed", slices.Concat(ops[1], m.signedB), true},
		{"encrypted, encrypted", slices.Concat(m.encA, m.encB), true},
		{"encrypted, signed", slices.Concat(m.encA, m.signedB), true},
		{"encrypted, newline", slices.Concat(m.encA, []byte("\n")), false},
		{"encrypted, key packet", slices.Concat(m.encA, packet.AppendPacket(nil, packet.TagPublicKey, []byte{4})), false},
		{"encrypted, cut header", slices.Concat(m.encA, []byte{0xc1}), false},
		{"armored, armored", slices.Concat(m.encArmored, m.signedArmored), true},
		{"two messages in one armored block", armored(t, slices.Concat(m.signedA, m.signedB)), true},
		{"appended to compressed data of indeterminate length", slices.Concat(indeterminate(t, m.signedA), m.signedB), false},
	} {
		ev := &sigEvents{}
		var out bytes.Buffer
		_, err := Decrypt(bytes.NewReader(c.in), &out, m.options(ev))
		var te *TrailingError
		if !errors.Is(err, ErrTrailingData) || !errors.As(err, &te) {
			t.Errorf("%s: %v, want ErrTrailingData", c.name, err)
			continue
		}
		if te.Message != c.message {
			t.Errorf("%s: Message %v in %v", c.name, te.Message, err)
		}
		if len(ev.sigs) > 0 {
			t.Errorf("%s: %d signatures reported", c.name, len(ev.sigs))
		}
		if bytes.HasPrefix(c.in, []byte(clearBegin)) && out.Len() > 0 {
			t.Errorf("%s: the text was written: %q", c.name, out.Bytes())
		}
	}
	for name, in := range map[string][]byte{
		"cleartext, blank lines":   slices.Concat(m.clearOne, []byte("\n \t\r\n\n")),
		"armored, text around it":  slices.Concat([]byte("Hi,\n\n"), m.encArmored, []byte("\n-- \nA footer\n")),
		"indeterminate compressed": indeterminate(t, m.signedA),
		"signed, padding":          slices.Concat(m.signedA, packet.AppendPacket(nil, packet.TagPadding, []byte{1, 2})),
	} {
		if _, err := Decrypt(bytes.NewReader(in), &bytes.Buffer{}, m.options(nil)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestMessagesInTurn reads concatenated messages one by one: each is
// checked on its own, a tampered one among good ones is BAD alone, and
// garbage after the last is an error.
func TestMessagesInTurn(t *testing.T) {
	m := makeMessages(t)
	p := packets(t, m.signedB)
	prefixed := slices.Concat(p[2], p[1]) // signature first, then the data
	type want struct {
		out  string
		sigs []SigStatus
	}
	for _, c := range []struct {
		name  string
		in    []byte
		want  []want
		after bool // an error follows the messages
	}{
		{"cleartext", slices.Concat(m.clearOne, m.clear, []byte("\n\n"), m.clearTwo),
			[]want{{"one\n", []SigStatus{SigGood}}, {"Two\n", []SigStatus{SigBad}}, {"two\n", []SigStatus{SigGood}}}, false},
		{"binary signed", slices.Concat(m.signedA, m.signedB), []want{{"A", []SigStatus{SigGood}}, {"B", []SigStatus{SigGood}}}, false},
		{"one-pass, then signature first", slices.Concat(m.signedA, prefixed), []want{{"A", []SigStatus{SigGood}}, {"B", []SigStatus{SigGood}}}, false},
		{"in one armored block", armored(t, slices.Concat(m.signedA, m.signedB)), []want{{"A", []SigStatus{SigGood}}, {"B", []SigStatus{SigGood}}}, false},
		{"encrypted", slices.Concat(m.encA, m.encB), []want{{"secret A", nil}, {"secret B", nil}}, false},
		{"mixed armor", slices.Concat(m.encArmored, []byte("text between\n"), m.clearTwo, m.signedArmored),
			[]want{{"secret armored", nil}, {"two\n", []SigStatus{SigGood}}, {"armored", []SigStatus{SigGood}}}, false},
		{"then garbage", slices.Concat(m.encA, m.signedA, []byte{0x00}), []want{{"secret A", nil}, {"A", []SigStatus{SigGood}}}, true},
		{"cleartext, then text", slices.Concat(m.clearOne, []byte("unsigned\n")), []want{{"one\n", []SigStatus{SigGood}}}, true},
	} {
		ms := NewMessages(bytes.NewReader(c.in))
		var err error
		for i, w := range c.want {
			if i > 0 {
				more, merr := ms.More()
				if !more || merr != nil {
					t.Fatalf("%s: no message %d: %v", c.name, i+1, merr)
				}
			}
			ev := &sigEvents{}
			var out bytes.Buffer
			res, nerr := ms.Next(&out, m.options(ev))
			if nerr != nil {
				t.Fatalf("%s: message %d: %v", c.name, i+1, nerr)
			}
			if out.String() != w.out || !slices.Equal(statuses(res.Signatures), w.sigs) || !slices.Equal(statuses(ev.sigs), w.sigs) {
				t.Errorf("%s: message %d: %q %v, want %q %v", c.name, i+1, out.String(), statuses(res.Signatures), w.out, w.sigs)
			}
		}
		more, err := ms.More()
		if more || (err != nil) != c.after || c.after && !errors.Is(err, ErrTrailingData) {
			t.Errorf("%s: after the messages: %v %v", c.name, more, err)
		}
	}
}
