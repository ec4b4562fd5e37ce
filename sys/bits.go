package sys

import (
	"strconv"
	"strings"
)

// bitName names one bit of a flag word.
type bitName struct {
	bit  uint64
	name string
}

// formatBits renders v as NAME|NAME|0x.. (unknown bits in hex), or "0".
func formatBits(v uint64, names []bitName) string {
	if v == 0 {
		return "0"
	}
	var b strings.Builder
	for _, n := range names {
		if v&n.bit != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
			v &^= n.bit
		}
	}
	if v != 0 {
		if b.Len() > 0 {
			b.WriteByte('|')
		}
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(v, 16))
	}
	return b.String()
}
