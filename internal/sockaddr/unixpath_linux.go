package sockaddr

import (
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// PutUnix encodes a Unix socket name as a struct sockaddr_un in b, Go's
// way: a leading '@' names an abstract socket (a leading NUL, the length
// exact); a path is NUL-terminated. It returns the length, or 0 when the
// name does not fit.
func PutUnix(b *[128]byte, name string) uint32 {
	*b = [128]byte{}
	const pathOff, pathLen = 2, unix.SizeofSockaddrUnix - 2 // sun_path
	n := len(name)
	if n == 0 || n > pathLen || (n == pathLen && name[0] != '@') {
		return 0
	}
	binary.NativeEndian.PutUint16(b[0:], unix.AF_UNIX)
	copy(b[pathOff:], name)
	if name[0] == '@' {
		b[pathOff] = 0
		return uint32(pathOff + n) // no NUL counted for an abstract name
	}
	return uint32(pathOff + n + 1)
}

// GetUnix decodes the name of a struct sockaddr_un of n bytes in b as
// PutUnix writes it ('@' for an abstract socket's leading NUL); "" for an
// unnamed socket, a sockaddr of another family or a short one.
func GetUnix(b []byte, n uint32) string {
	if n <= 2 || int(n) > len(b) || binary.NativeEndian.Uint16(b[0:]) != unix.AF_UNIX {
		return ""
	}
	name := []byte(string(b[2:n]))
	if name[0] == 0 {
		name[0] = '@' // abstract
	}
	for i, c := range name {
		if c == 0 {
			return string(name[:i])
		}
	}
	return string(name)
}
