package filter

import (
	"fmt"
	"io"

	"github.com/pgpstream/pgpstream/packet"
)

func (d *decryptor) aead(body *packet.Body, h packet.Header) error {
	return &packet.UnsupportedError{Packet: h.Tag.String(), Offset: h.Offset, What: "packet: AEAD decryption is not built yet"}
}

func (d *decryptor) seipdV2(body *packet.Body, s packet.SEIPD) error {
	return &packet.UnsupportedError{Packet: "SEIPD", Offset: s.Offset, What: "version 2: AEAD decryption is not built yet"}
}

func newAEADWriter(out io.Writer, opt EncryptOptions, key []byte) (io.WriteCloser, error) {
	return nil, fmt.Errorf("writing %v is not built yet", opt.Format)
}
