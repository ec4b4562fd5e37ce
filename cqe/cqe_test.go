//go:build linux

package cqe_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func TestResult(t *testing.T) {
	n, err := cqe.Result(&sys.CQE{Res: 42})
	require.NoError(t, err)
	require.Equal(t, 42, n)

	n, err = cqe.Result(&sys.CQE{Res: -int32(unix.ECANCELED)})
	require.Equal(t, 0, n)
	require.ErrorIs(t, err, unix.ECANCELED)
	require.Equal(t, unix.ECANCELED, err)

	_, err = cqe.Result(&sys.CQE{Res: -1 << 31})
	require.Error(t, err)
}

func TestErr(t *testing.T) {
	require.NoError(t, cqe.Err(&sys.CQE{Res: 0}, sys.OpRead, 3))
	err := cqe.Err(&sys.CQE{Res: -int32(unix.ETIME)}, sys.OpTimeout, -1)
	require.ErrorIs(t, err, unix.ETIME)
	require.EqualError(t, err, "uring: TIMEOUT: timer expired")
	var e *cqe.Error
	require.True(t, errors.As(err, &e))
	require.Equal(t, sys.OpTimeout, e.Op)
	require.Equal(t, -1, e.Fd)

	err = cqe.Err(&sys.CQE{Res: -int32(unix.EBADF)}, sys.OpRead, 7)
	require.EqualError(t, err, "uring: READ fd 7: bad file descriptor")

	// EFAULT of a registered-buffer op says where to look; of others not.
	hint := " (the buffer is not inside the registered buffer its index names: slice it from reg.Buffers.Buf)"
	err = cqe.Err(&sys.CQE{Res: -int32(unix.EFAULT)}, sys.OpReadFixed, 3)
	require.EqualError(t, err, "uring: READ_FIXED fd 3: bad address"+hint)
	require.ErrorIs(t, err, unix.EFAULT)
	require.EqualError(t, &cqe.Error{Name: "write_fixed", Fd: 4, Err: unix.EFAULT}, "uring: write_fixed fd 4: bad address"+hint)
	err = cqe.Err(&sys.CQE{Res: -int32(unix.EFAULT)}, sys.OpRead, 3)
	require.EqualError(t, err, "uring: READ fd 3: bad address")
}

func TestFlags(t *testing.T) {
	c := &sys.CQE{Flags: sys.CQEFBuffer | sys.CQEFMore | 513<<sys.CQEBufferShift}
	id, ok := cqe.Buffer(c)
	require.True(t, ok)
	require.Equal(t, uint16(513), id)
	require.True(t, cqe.More(c))
	require.False(t, cqe.Notif(c))

	// Buffer id bits without F_BUFFER are not a buffer id.
	c = &sys.CQE{Flags: 513 << sys.CQEBufferShift}
	id, ok = cqe.Buffer(c)
	require.False(t, ok)
	require.Zero(t, id)

	c = &sys.CQE{Flags: sys.CQEFSockNonempty | sys.CQEFBufMore}
	require.True(t, cqe.SockNonempty(c))
	require.True(t, cqe.BufMore(c))
	require.False(t, cqe.More(c))

	copied := int32(-1 << 31) // IORING_NOTIF_USAGE_ZC_COPIED as res
	c = &sys.CQE{Flags: sys.CQEFNotif, Res: copied}
	require.True(t, cqe.Notif(c))
	require.True(t, cqe.NotifCopied(c))
	require.False(t, cqe.NotifCopied(&sys.CQE{Res: copied}))
}

func TestMixed(t *testing.T) {
	slots := []sys.CQE{
		{UserData: 1, Flags: sys.CQEF32},
		{UserData: 0x1111, Res: 0x22, Flags: 0x33},
		{UserData: 2},
		{Flags: sys.CQEFSkip},
	}
	require.True(t, cqe.Is32(&slots[0]))
	require.Equal(t, 2, cqe.Slots(&slots[0], sys.SetupCQEMixed))
	require.Equal(t, 1, cqe.Slots(&slots[0], 0))
	require.Equal(t, 2, cqe.Slots(&slots[2], sys.SetupCQE32))
	require.Equal(t, 1, cqe.Slots(&slots[2], sys.SetupCQEMixed))
	require.True(t, cqe.Skip(&slots[3]))

	extra, ok := cqe.ExtraAt(slots, 0, sys.SetupCQEMixed)
	require.True(t, ok)
	require.Equal(t, [2]uint64{0x1111, 0x33<<32 | 0x22}, extra)
	_, ok = cqe.ExtraAt(slots, 2, sys.SetupCQEMixed)
	require.False(t, ok)
	_, ok = cqe.ExtraAt(slots, 3, sys.SetupCQE32)
	require.False(t, ok, "second half missing")
	_, ok = cqe.ExtraAt(slots, -1, sys.SetupCQE32)
	require.False(t, ok)

	a, b := cqe.Extra(&sys.CQE32{BigCQE: [2]uint64{5, 6}})
	require.Equal(t, uint64(5), a)
	require.Equal(t, uint64(6), b)
}

// recvmsgBuf lays out a provided buffer as a multishot RECVMSG does.
func recvmsgBuf(hdr sys.RecvmsgOut, nameArea, ctlArea int, name, ctl, payload []byte) []byte {
	b := make([]byte, 16+nameArea+ctlArea)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], hdr.Namelen)
	ne.PutUint32(b[4:], hdr.Controllen)
	ne.PutUint32(b[8:], hdr.Payloadlen)
	ne.PutUint32(b[12:], hdr.Flags)
	copy(b[16:16+nameArea], name)
	copy(b[16+nameArea:], ctl)
	return append(b, payload...)
}

func msgh(name uint32, ctl int) *unix.Msghdr {
	m := &unix.Msghdr{Namelen: name}
	m.SetControllen(ctl)
	return m
}

func TestParseRecvmsg(t *testing.T) {
	_, err := cqe.ParseRecvmsg(make([]byte, 64), nil)
	require.ErrorIs(t, err, cqe.ErrRecvmsgNilMsghdr)

	name := []byte("0123456789abcdef")
	ctl := []byte("cmsgcmsgcmsgcmsg")
	buf := recvmsgBuf(sys.RecvmsgOut{Namelen: 16, Controllen: 16, Payloadlen: 5}, 16, 32, name, ctl, []byte("hello"))
	r, err := cqe.ParseRecvmsg(buf, msgh(16, 32))
	require.NoError(t, err)
	require.Equal(t, name, r.Name)
	require.Equal(t, ctl, r.Control)
	require.Equal(t, []byte("hello"), r.Payload)
	require.False(t, r.NameTruncated())
	require.False(t, r.ControlTruncated())
	require.False(t, r.PayloadTruncated())

	// Truncations: a name longer than the area, MSG_CTRUNC, a datagram
	// longer than the buffer.
	buf = recvmsgBuf(sys.RecvmsgOut{Namelen: 28, Controllen: 8, Payloadlen: 100, Flags: unix.MSG_CTRUNC | unix.MSG_TRUNC}, 16, 8, name, ctl, []byte("hel"))
	r, err = cqe.ParseRecvmsg(buf, msgh(16, 8))
	require.NoError(t, err)
	require.Len(t, r.Name, 16)
	require.True(t, r.NameTruncated())
	require.True(t, r.ControlTruncated())
	require.True(t, r.PayloadTruncated())
	require.Equal(t, []byte("hel"), r.Payload)

	// Payload length below what the slice holds trims the payload.
	buf = recvmsgBuf(sys.RecvmsgOut{Payloadlen: 2}, 0, 0, nil, nil, []byte("hello"))
	r, err = cqe.ParseRecvmsg(buf, msgh(0, 0))
	require.NoError(t, err)
	require.Equal(t, []byte("he"), r.Payload)

	_, err = cqe.ParseRecvmsg(buf[:15], msgh(0, 0))
	require.ErrorIs(t, err, cqe.ErrRecvmsgShort)
	_, err = cqe.ParseRecvmsg(buf, msgh(1<<31, 1<<31))
	require.ErrorIs(t, err, cqe.ErrRecvmsgShort)
}

func TestDecodeAllocs(t *testing.T) {
	c := &sys.CQE{Res: -int32(unix.ECANCELED), Flags: sys.CQEFBuffer | sys.CQEFMore | 3<<sys.CQEBufferShift}
	ok := &sys.CQE{Res: 4096}
	buf := recvmsgBuf(sys.RecvmsgOut{Payloadlen: 5}, 16, 16, nil, nil, []byte("hello"))
	m := msgh(16, 16)
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		n, err := cqe.Result(ok)
		sink += n
		if _, err = cqe.Result(c); err == nil {
			sink++
		}
		if cqe.Err(ok, sys.OpRead, 3) != nil {
			sink++
		}
		id, _ := cqe.Buffer(c)
		sink += int(id)
		if cqe.More(c) && !cqe.Notif(c) && !cqe.SockNonempty(c) && !cqe.BufMore(c) {
			sink++
		}
		r, _ := cqe.ParseRecvmsg(buf, m)
		sink += len(r.Payload)
	})
	require.Zero(t, allocs)
	require.NotZero(t, sink)
}
