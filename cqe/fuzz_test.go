//go:build linux

package cqe_test

import (
	"encoding/binary"
	"testing"

	"github.com/pure-uring/uring/cqe"
	"github.com/pure-uring/uring/sys"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// FuzzCQE decodes arbitrary 16- and 32-byte CQEs: no panic, the buffer id
// only with F_BUFFER, the result and errno consistent with res.
func FuzzCQE(f *testing.F) {
	f.Add(uint64(1), int32(0), uint32(0), uint64(0), uint64(0))
	f.Add(uint64(7), int32(-125), uint32(sys.CQEFBuffer|sys.CQEFMore|9<<16), uint64(1), uint64(2))
	f.Add(uint64(0), int32(-1<<31), uint32(0xffffffff), ^uint64(0), ^uint64(0))
	f.Add(uint64(3), int32(8), uint32(sys.CQEF32|sys.CQEFSkip|sys.CQEFNotif), uint64(4), uint64(5))
	f.Fuzz(func(t *testing.T, ud uint64, res int32, flags uint32, x0, x1 uint64) {
		c := &sys.CQE32{CQE: sys.CQE{UserData: ud, Res: res, Flags: sys.CQEFlags(flags)}, BigCQE: [2]uint64{x0, x1}}
		n, err := cqe.Result(&c.CQE)
		if res < 0 {
			require.Zero(t, n)
			require.ErrorIs(t, err, unix.Errno(-int64(res)))
			require.ErrorIs(t, cqe.Err(&c.CQE, sys.OpRead, -1), unix.Errno(-int64(res)))
		} else {
			require.NoError(t, err)
			require.Equal(t, int(res), n)
			require.NoError(t, cqe.Err(&c.CQE, sys.OpRead, 1))
		}
		id, ok := cqe.Buffer(&c.CQE)
		require.Equal(t, flags&uint32(sys.CQEFBuffer) != 0, ok)
		if ok {
			require.Equal(t, uint16(flags>>16), id)
		} else {
			require.Zero(t, id)
		}
		require.Equal(t, flags&uint32(sys.CQEFMore) != 0, cqe.More(&c.CQE))
		require.Equal(t, flags&uint32(sys.CQEF32) != 0, cqe.Is32(&c.CQE))
		a, b := cqe.Extra(c)
		require.Equal(t, [2]uint64{x0, x1}, [2]uint64{a, b})
		_ = cqe.SockNonempty(&c.CQE) || cqe.Notif(&c.CQE) || cqe.NotifCopied(&c.CQE) || cqe.BufMore(&c.CQE) || cqe.Skip(&c.CQE)
		slots := []sys.CQE{c.CQE, {UserData: x0, Res: int32(uint32(x1)), Flags: sys.CQEFlags(x1 >> 32)}}
		for _, setup := range []sys.SetupFlags{0, sys.SetupCQE32, sys.SetupCQEMixed} {
			extra, ok := cqe.ExtraAt(slots, 0, setup)
			require.Equal(t, cqe.Slots(&c.CQE, setup) == 2, ok)
			if ok {
				require.Equal(t, [2]uint64{x0, x1}, extra)
			}
			_, ok = cqe.ExtraAt(slots[:1], 0, setup)
			require.False(t, ok)
		}
	})
}

// FuzzParseRecvmsg parses arbitrary buffers: no panic; every slice inside
// the buffer and within the areas' bounds.
func FuzzParseRecvmsg(f *testing.F) {
	f.Add([]byte{}, uint32(0), uint32(0))
	f.Add(make([]byte, 16), uint32(0), uint32(0))
	hdr := make([]byte, 16+16+8+5)
	binary.NativeEndian.PutUint32(hdr[0:], 16)
	binary.NativeEndian.PutUint32(hdr[4:], 8)
	binary.NativeEndian.PutUint32(hdr[8:], 5)
	f.Add(hdr, uint32(16), uint32(8))
	f.Add(hdr, uint32(0xffffffff), uint32(0xffffffff))
	f.Fuzz(func(t *testing.T, buf []byte, nameLen, ctlLen uint32) {
		m := unix.Msghdr{Namelen: nameLen}
		m.SetControllen(int(ctlLen))
		r, err := cqe.ParseRecvmsg(buf, &m)
		if err != nil {
			require.Less(t, uint64(len(buf)), 16+uint64(nameLen)+uint64(ctlLen))
			return
		}
		require.LessOrEqual(t, uint64(len(r.Name)), uint64(nameLen))
		require.LessOrEqual(t, uint64(len(r.Control)), uint64(ctlLen))
		require.Equal(t, len(buf)-16-int(nameLen)-int(ctlLen) >= len(r.Payload), true)
		require.LessOrEqual(t, uint64(len(r.Payload)), uint64(r.PayloadLen))
		_ = r.NameTruncated() || r.ControlTruncated() || r.PayloadTruncated()
	})
}
