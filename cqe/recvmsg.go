//go:build linux

package cqe

import (
	"encoding/binary"
	"errors"

	"golang.org/x/sys/unix"
)

// recvmsgOutSize is sizeof(struct io_uring_recvmsg_out).
const recvmsgOutSize = 16

// ErrRecvmsgShort is returned by ParseRecvmsg for a buffer too short to
// hold the header and the name and control areas.
var ErrRecvmsgShort = errors.New("cqe: recvmsg buffer shorter than its header, name and control areas")

// RecvmsgOut is one message of a multishot RECVMSG, parsed from the
// provided buffer the kernel filled: a sys.RecvmsgOut header, a name area
// of msghdr.Namelen bytes, a control area of msghdr.Controllen bytes, then
// the payload. The slices point into that buffer.
type RecvmsgOut struct {
	Name       []byte // source address (at most the name area)
	Control    []byte // control messages (at most the control area)
	Payload    []byte // data received, as much as the buffer held
	NameLen    uint32 // the full source-address length the kernel had
	PayloadLen uint32 // the full length of the message
	Flags      uint32 // MSG_* flags of the message (MSG_TRUNC, MSG_CTRUNC, ...)
}

// NameTruncated reports that the source address did not fit the name area.
func (r *RecvmsgOut) NameTruncated() bool { return r.NameLen > uint32(len(r.Name)) }

// ControlTruncated reports MSG_CTRUNC: control messages did not fit.
func (r *RecvmsgOut) ControlTruncated() bool { return r.Flags&unix.MSG_CTRUNC != 0 }

// PayloadTruncated reports that the message was longer than the payload
// kept (MSG_TRUNC, or a payload shorter than PayloadLen).
func (r *RecvmsgOut) PayloadTruncated() bool {
	return r.Flags&unix.MSG_TRUNC != 0 || r.PayloadLen > uint32(len(r.Payload))
}

// ParseRecvmsg parses buf, a provided buffer sliced to the CQE's result
// (buf[:res]), filled by a multishot RECVMSG prepared with msg (only its
// Namelen and Controllen are read: they size the name and control areas).
// Every length is checked against len(buf): garbage gives an error or short
// slices, never a panic. It does not allocate.
func ParseRecvmsg(buf []byte, msg *unix.Msghdr) (RecvmsgOut, error) {
	if msg == nil {
		return RecvmsgOut{}, ErrRecvmsgNilMsghdr
	}
	return parseRecvmsg(buf, uint64(msg.Namelen), uint64(msg.Controllen))
}

// ErrRecvmsgNilMsghdr is returned by ParseRecvmsg for a nil msghdr.
var ErrRecvmsgNilMsghdr = errors.New("cqe: ParseRecvmsg: msg is nil")

func parseRecvmsg(buf []byte, nameLen, controlLen uint64) (RecvmsgOut, error) {
	hdr := uint64(recvmsgOutSize) + nameLen + controlLen
	if nameLen > 1<<32 || controlLen > 1<<40 || uint64(len(buf)) < hdr {
		return RecvmsgOut{}, ErrRecvmsgShort
	}
	ne := binary.NativeEndian
	r := RecvmsgOut{
		NameLen:    ne.Uint32(buf[0:4]),
		PayloadLen: ne.Uint32(buf[8:12]),
		Flags:      ne.Uint32(buf[12:16]),
	}
	ctl := ne.Uint32(buf[4:8])
	nameArea := buf[recvmsgOutSize : recvmsgOutSize+nameLen]
	r.Name = nameArea[:min(uint64(r.NameLen), nameLen)]
	ctlArea := buf[recvmsgOutSize+nameLen : hdr]
	r.Control = ctlArea[:min(uint64(ctl), controlLen)]
	payload := buf[hdr:]
	if uint64(r.PayloadLen) < uint64(len(payload)) {
		payload = payload[:r.PayloadLen]
	}
	r.Payload = payload
	return r, nil
}
