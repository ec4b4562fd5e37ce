//go:build linux

package sqe

import "github.com/pure-uring/uring/sys"

// Modifiers (named Set...) change an SQE a builder has prepared. Call
// them after the builder: builders write every field of the SQE.

// SetLink sets IOSQE_IO_LINK: the next SQE starts only after this one
// succeeds; a failure (or short read/write) cancels the rest of the chain
// with ECANCELED. Linux 5.3.
func SetLink(s *sys.SQE) { s.Flags |= sys.SQEIOLink }

// SetHardLink sets IOSQE_IO_HARDLINK: like SetLink, but the chain continues
// whatever this SQE's result. Linux 5.5.
func SetHardLink(s *sys.SQE) { s.Flags |= sys.SQEIOHardlink }

// SetDrain sets IOSQE_IO_DRAIN: the SQE starts only after every SQE submitted
// before it has completed. Linux 5.2.
func SetDrain(s *sys.SQE) { s.Flags |= sys.SQEIODrain }

// SetAsync sets IOSQE_ASYNC: skip the non-blocking attempt and go straight to
// an io-wq worker. Linux 5.6.
func SetAsync(s *sys.SQE) { s.Flags |= sys.SQEAsync }

// SetSkipSuccess sets IOSQE_CQE_SKIP_SUCCESS: no CQE unless the request
// fails. Linux 5.17.
func SetSkipSuccess(s *sys.SQE) { s.Flags |= sys.SQECQESkipSuccess }

// SetSlot retargets the SQE from the fd its builder was given to a
// registered file: the fd field becomes slot (no +1: that encoding is only
// for direct-descriptor targets) and IOSQE_FIXED_FILE is set. Linux 5.1.
// The builder checks its fd first, so give it a placeholder it accepts: 0
// (-1 is refused, with the builder's *ArgError). An out-of-range slot
// returns an error and leaves the SQE untouched.
func SetSlot(s *sys.SQE, slot Slot) error {
	if err := checkSlot("SetSlot", "slot", slot, false); err != nil {
		return err
	}
	s.Fd = int32(slot)
	s.Flags |= sys.SQEFixedFile
	return nil
}

// SetBufferSelect sets IOSQE_BUFFER_SELECT with buffer group group: the kernel
// picks the data buffer from that provided-buffer group when the request
// runs, and reports its id in the CQE (cqe.Buffer). The builder's own
// buffer must be nil (length 0 means "the whole provided buffer", or give
// the length to read through the builder's length argument where it has
// one). Linux 5.7.
func SetBufferSelect(s *sys.SQE, group uint16) {
	s.Flags |= sys.SQEBufferSelect
	s.BufIndex = group
}

// SetPersonality runs the request with the credentials registered under id
// (REGISTER_PERSONALITY). Linux 5.6.
func SetPersonality(s *sys.SQE, id uint16) { s.Personality = id }

// SetIoprio sets the I/O priority of a read or write (ioprio_set(2) encoding).
// Do not use it on socket ops and ACCEPT, whose ioprio field carries the
// op's own flags. Linux 5.1.
func SetIoprio(s *sys.SQE, prio uint16) { s.Ioprio = prio }

// SetUserData sets the 64-bit value the CQE carries back. Linux 5.1.
func SetUserData(s *sys.SQE, v uint64) { s.UserData = v }
