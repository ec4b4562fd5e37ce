package cqe

import "github.com/pure-uring/uring/sys"

// More reports IORING_CQE_F_MORE: a multishot request stays armed and more
// CQEs follow (or, for a zero-copy send, an F_NOTIF CQE follows).
func More(c *sys.CQE) bool { return c.Flags&sys.CQEFMore != 0 }

// Buffer returns the provided-buffer id the kernel picked, and true, when
// IORING_CQE_F_BUFFER is set; otherwise 0 and false (the upper bits are not
// read).
func Buffer(c *sys.CQE) (id uint16, ok bool) {
	if c.Flags&sys.CQEFBuffer == 0 {
		return 0, false
	}
	return uint16(c.Flags >> sys.CQEBufferShift), true
}

// BufMore reports IORING_CQE_F_BUF_MORE: with an incrementally consumed
// buffer ring (IOU_PBUF_RING_INC), the buffer named by this CQE is not used
// up and later CQEs will name it again.
func BufMore(c *sys.CQE) bool { return c.Flags&sys.CQEFBufMore != 0 }

// SockNonempty reports IORING_CQE_F_SOCK_NONEMPTY: after this receive the
// socket still had data queued.
func SockNonempty(c *sys.CQE) bool { return c.Flags&sys.CQEFSockNonempty != 0 }

// Notif reports IORING_CQE_F_NOTIF: this is the notification of a
// zero-copy send; its buffers are the caller's again.
func Notif(c *sys.CQE) bool { return c.Flags&sys.CQEFNotif != 0 }

// NotifCopied reports, for an F_NOTIF CQE of a send made with
// sys.SendZCReportUsage, that the kernel copied the data instead of
// sending it zero-copy.
func NotifCopied(c *sys.CQE) bool {
	return Notif(c) && uint32(c.Res)&sys.NotifUsageZCCopied != 0
}

// Is32 reports IORING_CQE_F_32: on a CQE_MIXED ring, this CQE is 32 bytes
// and occupies two slots.
func Is32(c *sys.CQE) bool { return c.Flags&sys.CQEF32 != 0 }

// Skip reports IORING_CQE_F_SKIP: on a CQE_MIXED ring, a filler entry the
// kernel posted to keep a 32-byte CQE from wrapping; it carries no result.
func Skip(c *sys.CQE) bool { return c.Flags&sys.CQEFSkip != 0 }

// Slots returns how many 16-byte slots the CQE occupies on a ring whose
// setup flags are setup: 2 on CQE32 rings and for F_32 CQEs on CQE_MIXED
// rings, 1 otherwise.
func Slots(c *sys.CQE, setup sys.SetupFlags) int {
	if setup&sys.SetupCQE32 != 0 || (setup&sys.SetupCQEMixed != 0 && Is32(c)) {
		return 2
	}
	return 1
}

// Extra returns the 16 extra bytes of a 32-byte CQE as two words.
func Extra(c *sys.CQE32) (uint64, uint64) { return c.BigCQE[0], c.BigCQE[1] }

// ExtraAt returns the extras of the 32-byte CQE whose first half is
// slots[i] on a CQE_MIXED or CQE32 ring (its second half is slots[i+1]);
// ok is false when slots[i] is not 32 bytes on a mixed ring or slots[i+1]
// is missing.
func ExtraAt(slots []sys.CQE, i int, setup sys.SetupFlags) (extra [2]uint64, ok bool) {
	if i < 0 || i+1 >= len(slots) || Slots(&slots[i], setup) != 2 {
		return extra, false
	}
	n := &slots[i+1] // big_cqe[] overlays the next slot (little-endian)
	return [2]uint64{n.UserData, uint64(uint32(n.Res)) | uint64(n.Flags)<<32}, true
}
