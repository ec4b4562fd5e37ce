//go:build linux

package tests

import (
	"errors"
	"testing"
	"time"

	"github.com/pure-uring/uring"
	"github.com/pure-uring/uring/sqe"
	"github.com/pure-uring/uring/sys"
	"golang.org/x/sys/unix"
)

// FuzzSQEBuilders: any arguments to a builder give either an *sqe.ArgError
// (unwrapping to EINVAL) with the SQE left zeroed, or an SQE whose fields
// decode back to the arguments, with every field the op does not use zero.
func FuzzSQEBuilders(f *testing.F) {
	f.Add(uint8(0), int64(3), int64(0), uint32(0), int64(0), []byte("buf"))
	f.Add(uint8(1), int64(-1), int64(-2), uint32(0), int64(0), []byte{})
	f.Add(uint8(2), int64(unix.AT_FDCWD), int64(0), uint32(0o644), int64(unix.O_RDONLY), []byte("/tmp/x\x00"))
	f.Add(uint8(2), int64(5), int64(0), uint32(0), int64(unix.O_CREAT|unix.O_WRONLY), []byte("a\x00b\x00"))
	f.Add(uint8(3), int64(0), int64(12345), uint32(0), int64(sys.AsyncCancelAll), []byte{})
	f.Add(uint8(4), int64(0), int64(time.Second+5), uint32(2), int64(0), []byte{})
	f.Add(uint8(4), int64(0), int64(-1), uint32(0), int64(1<<20), []byte{})
	f.Add(uint8(5), int64(1<<31), int64(0), uint32(0), int64(sys.FsyncDatasync), []byte{})
	f.Fuzz(func(t *testing.T, which uint8, fd, off int64, n uint32, flags int64, data []byte) {
		var s sys.SQE
		var ts sys.Timespec
		var err error
		want := sys.SQE{}
		switch which % 6 {
		case 0:
			err = sqe.Read(&s, int(fd), data, off)
			want = sys.SQE{Opcode: sys.OpRead, Fd: int32(fd), Addr: sys.SliceAddr(data), Len: uint32(len(data)), Off: uint64(off)}
		case 1:
			err = sqe.Write(&s, int(fd), data, off)
			want = sys.SQE{Opcode: sys.OpWrite, Fd: int32(fd), Addr: sys.SliceAddr(data), Len: uint32(len(data)), Off: uint64(off)}
		case 2:
			err = sqe.Openat(&s, int(fd), data, int(flags), n)
			want = sys.SQE{Opcode: sys.OpOpenat, Fd: int32(fd), Addr: sys.SliceAddr(data), Len: n, OpFlags: uint32(flags) | unix.O_CLOEXEC}
			if err == nil && int64(int32(flags)) != flags && int64(uint32(flags)) != flags {
				t.Fatalf("Openat accepted flags %#x, which do not fit the 32-bit open_flags field", flags)
			}
		case 3:
			err = sqe.Cancel(&s, uint64(off), uint32(flags))
			want = sys.SQE{Opcode: sys.OpAsyncCancel, Fd: -1, Addr: uint64(off), OpFlags: uint32(flags)}
		case 4:
			d := time.Duration(off)
			err = sqe.Timeout(&s, &ts, d, n, uint32(flags))
			want = sys.SQE{Opcode: sys.OpTimeout, Fd: -1, Addr: sys.PtrAddr(&ts), Len: 1, Off: uint64(n), OpFlags: uint32(flags)}
			if err == nil && (d < 0 || time.Duration(ts.Sec)*time.Second+time.Duration(ts.Nsec) != d || ts.Nsec >= 1e9) {
				t.Fatalf("Timeout(%v) wrote timespec %+v", d, ts)
			}
		case 5:
			err = sqe.Fsync(&s, int(fd), uint32(flags))
			want = sys.SQE{Opcode: sys.OpFsync, Fd: int32(fd), OpFlags: uint32(flags)}
		}
		if err != nil {
			var ae *sqe.ArgError
			if !errors.As(err, &ae) || !errors.Is(err, unix.EINVAL) {
				t.Fatalf("error %v (%T) is not an *sqe.ArgError unwrapping to EINVAL", err, err)
			}
			if s != (sys.SQE{}) {
				t.Fatalf("a rejected SQE was written: %+v", s)
			}
			return
		}
		if int64(int32(fd)) != fd && which%6 != 3 && which%6 != 4 {
			t.Fatalf("fd %d accepted but does not fit the SQE's 32-bit fd", fd)
		}
		if s != want {
			t.Fatalf("SQE\n%+v\nwant\n%+v", s, want)
		}
	})
}

// FuzzCheckOffsets: any ring parameters and mapping sizes: CheckOffsets
// either rejects them (ErrBadOffsets) or every index word, the CQE array
// and the SQ array lie inside the mappings (checked by touching them in
// buffers of exactly those sizes).
func FuzzCheckOffsets(f *testing.F) {
	// What 6.18 returns for a 8/16 ring, and variations.
	f.Add(uint32(8), uint32(16), uint32(0), uint32(0), uint32(64), uint32(4), uint32(8), uint32(16), uint32(128), uint32(64), uint32(4), uint32(8), uint32(60), uint32(64), uint32(256), uint64(448), uint64(320))
	f.Add(uint32(8), uint32(16), uint32(1<<13), uint32(0), uint32(64), uint32(4), uint32(8), uint32(16), uint32(0), uint32(64), uint32(4), uint32(8), uint32(60), uint32(64), uint32(256), uint64(448), uint64(576))
	f.Add(uint32(3), uint32(16), uint32(0), uint32(0), uint32(64), uint32(4), uint32(8), uint32(16), uint32(128), uint32(64), uint32(4), uint32(8), uint32(60), uint32(64), uint32(256), uint64(448), uint64(320))
	f.Add(uint32(8), uint32(16), uint32(0), uint32(0xfffffffc), uint32(64), uint32(4), uint32(8), uint32(16), uint32(128), uint32(64), uint32(4), uint32(8), uint32(60), uint32(64), uint32(0xffffff00), uint64(448), uint64(320))
	f.Fuzz(func(t *testing.T, sqN, cqN, flags, sqHead, sqTail, sqMask, sqEnt, sqFlags, sqArray, cqHead, cqTail, cqMask, cqOverflow, cqFlags, cqCQEs uint32, sqLen, cqLen uint64) {
		sqLen %= 1 << 22
		cqLen %= 1 << 22
		p := sys.Params{SQEntries: sqN, CQEntries: cqN, Flags: sys.SetupFlags(flags)}
		p.SQOff.Head, p.SQOff.Tail, p.SQOff.RingMask, p.SQOff.RingEntries = sqHead, sqTail, sqMask, sqEnt
		p.SQOff.Flags, p.SQOff.Dropped, p.SQOff.Array = sqFlags, sqFlags^4, sqArray
		p.CQOff.Head, p.CQOff.Tail, p.CQOff.RingMask, p.CQOff.RingEntries = cqHead, cqTail, cqMask, cqMask^4
		p.CQOff.Overflow, p.CQOff.Flags, p.CQOff.CQEs = cqOverflow, cqFlags, cqCQEs
		err := uring.CheckOffsets(&p, sqLen, cqLen)
		if err != nil {
			if !errors.Is(err, uring.ErrBadOffsets) {
				t.Fatalf("error %v is not ErrBadOffsets", err)
			}
			return
		}
		sq, cq := make([]byte, sqLen), make([]byte, cqLen)
		for _, o := range []uint32{sqHead, sqTail, sqMask, sqEnt, sqFlags, sqFlags ^ 4} {
			_ = sq[o : o+4] // panics (a fuzz failure) when outside
		}
		for _, o := range []uint32{cqHead, cqTail, cqMask, cqMask ^ 4, cqOverflow, cqFlags} {
			_ = cq[o : o+4]
		}
		size := uint64(16)
		if p.Flags&sys.SetupCQE32 != 0 {
			size = 32
		}
		_ = cq[cqCQEs : uint64(cqCQEs)+uint64(cqN)*size]
		if p.Flags&sys.SetupNoSQArray == 0 {
			_ = sq[sqArray : uint64(sqArray)+uint64(sqN)*4]
		}
		if sqN == 0 || sqN&(sqN-1) != 0 || cqN == 0 || cqN&(cqN-1) != 0 {
			t.Fatalf("accepted entries %d/%d", sqN, cqN)
		}
	})
}
