//go:build linux

package ring

import (
	"encoding/binary"

	"golang.org/x/sys/unix"

	"github.com/pure-uring/uring/internal/sockaddr"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"github.com/pure-uring/uring/task/internal/iop"
)

// rawSockaddrBytes is the memory of sa as the kernel wrote it.
func rawSockaddrBytes(sa *unix.RawSockaddrAny, b *[128]byte) []byte {
	binary.NativeEndian.PutUint16(b[0:], sa.Addr.Family)
	for i, v := range sa.Addr.Data {
		b[2+i] = byte(v)
	}
	for i, v := range sa.Pad {
		b[16+i] = byte(v)
	}
	return b[:16+len(sa.Pad)]
}

// htons is a port in network byte order, as sockaddr_in's sin_port.
func htons(p uint16) uint16 {
	var b [2]byte
	binary.BigEndian.PutUint16(b[:], p)
	return binary.NativeEndian.Uint16(b[:])
}

// connect fills s with a CONNECT to op.Addr, whose sockaddr lives in sl.
func (sl *slot) connect(s *sys.SQE, fd int, op *iop.Op) error {
	addr := op.Addr
	if a := addr.Addr(); a.Is4() {
		sl.sa4 = unix.RawSockaddrInet4{Family: unix.AF_INET, Port: htons(addr.Port()), Addr: a.As4()}
		return sqe.Connect(s, fd, &sl.sa4)
	}
	a := addr.Addr()
	sl.sa6 = unix.RawSockaddrInet6{Family: unix.AF_INET6, Port: htons(addr.Port()), Addr: a.As16(), Scope_id: sockaddr.ZoneIndex(a.Zone())}
	return sqe.Connect(s, fd, &sl.sa6)
}

// prepMsg builds the slot's msghdr for bufs and oob (pinned).
func (sl *slot) prepMsg(bufs [][]byte, oob []byte) error {
	sl.msg = unix.Msghdr{}
	iov, err := sl.fillIov(bufs)
	if err != nil {
		return err
	}
	if len(iov) > 0 {
		sl.msg.Iov = &iov[0]
		sl.msg.SetIovlen(len(iov))
	}
	if len(oob) > 0 {
		sl.msg.Control = &oob[0]
		sl.msg.SetControllen(len(oob))
		sl.keepBytes(oob)
	}
	return nil
}
