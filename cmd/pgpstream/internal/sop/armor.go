package sop

import (
	"bufio"
	"errors"
	"io"

	"github.com/pgpstream/pgpstream/armor"
	"github.com/pgpstream/pgpstream/filter"
	"github.com/pgpstream/pgpstream/iobuf"
	"github.com/pgpstream/pgpstream/packet"
)

var armorCmd = &command{
	name:     "armor",
	synopsis: "armor < DATA > DATA",
	run:      runArmor,
}

// runArmor armors binary OpenPGP data with the label its first packet
// calls for; data armored already passes unchanged, as the draft asks.
func runArmor(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	br := bufio.NewReaderSize(c.env.Stdin, iobuf.DefaultSize)
	head, _ := br.Peek(64)
	if len(head) == 0 {
		return fail(codeBadData, "armor: the input is empty")
	}
	if armor.IsArmored(head) || filter.IsClearSigned(head) {
		_, err := io.Copy(c.env.Stdout, br)
		return err
	}
	label, err := armorLabel(head[0])
	if err != nil {
		return err
	}
	aw := armor.NewWriter(c.env.Stdout, label, nil)
	if _, err := io.Copy(aw, br); err != nil {
		return err
	}
	return aw.Close()
}

// armorLabel is the armor header line a packet with header octet b
// begins: keys, certificates and signatures have their own, anything
// else is a message (RFC 9580 section 6.2).
func armorLabel(b byte) (string, error) {
	if b&0x80 == 0 {
		return "", fail(codeBadData, "armor: the input is not OpenPGP data (first octet 0x%02x)", b)
	}
	tag := packet.Tag(b & 0x3f)
	if b&0x40 == 0 {
		tag = packet.Tag(b >> 2 & 0x0f)
	}
	switch tag {
	case packet.TagSecretKey:
		return armor.PrivateKey, nil
	case packet.TagPublicKey:
		return armor.PublicKey, nil
	case packet.TagSignature:
		return armor.Signature, nil
	}
	return armor.Message, nil
}

var dearmorCmd = &command{
	name:     "dearmor",
	synopsis: "dearmor < DATA > DATA",
	run:      runDearmor,
}

// runDearmor removes the armor; binary data passes unchanged.
func runDearmor(c *call) error {
	if err := c.noArgs(); err != nil {
		return err
	}
	br := bufio.NewReaderSize(c.env.Stdin, armor.BufSize)
	head, _ := br.Peek(64)
	if len(head) == 0 {
		return fail(codeBadData, "dearmor: the input is empty")
	}
	if head[0]&0x80 != 0 {
		_, err := io.Copy(c.env.Stdout, br)
		return err
	}
	ar, err := armor.NewReader(br)
	if err != nil {
		return failWith(codeBadData, err, "dearmor")
	}
	if _, err := io.Copy(c.env.Stdout, ar); err != nil {
		var aerr *armor.Error
		if errors.As(err, &aerr) {
			return failWith(codeBadData, err, "dearmor")
		}
		return err
	}
	return nil
}
