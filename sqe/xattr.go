//go:build linux

package sqe

import (
	"strconv"

	"github.com/pure-uring/uring/sys"
)

// XattrSizeMax is the largest extended-attribute value (XATTR_SIZE_MAX).
const XattrSizeMax = 65536

func checkXattr(fn string, name, value []byte) error {
	if err := checkPath(fn, "name", name); err != nil {
		return err
	}
	if len(value) > XattrSizeMax {
		return argErr(fn, "len(value)", "= "+strconv.Itoa(len(value))+" exceeds XATTR_SIZE_MAX (65536)")
	}
	return nil
}

// Fsetxattr prepares fsetxattr(2): set attribute name of fd to value, with
// XATTR_CREATE/XATTR_REPLACE flags: io_uring_prep_fsetxattr(3),
// IORING_OP_FSETXATTR, Linux 5.19. The kernel reads name and value until
// the CQE.
func Fsetxattr(s *sys.SQE, fd int, name, value []byte, flags uint32) error {
	if err := firstErr(checkFd("Fsetxattr", "fd", fd), checkXattr("Fsetxattr", name, value)); err != nil {
		return err
	}
	prep(s, sys.OpFsetxattr, fd, addrOf(name), uint32(len(value)), addrOf(value))
	s.OpFlags = flags
	return nil
}

// Setxattr prepares setxattr(2): set attribute name of the file at path to
// value: io_uring_prep_setxattr(3), IORING_OP_SETXATTR, Linux 5.19. The
// kernel reads path, name and value until the CQE.
func Setxattr(s *sys.SQE, path, name, value []byte, flags uint32) error {
	if err := firstErr(checkPath("Setxattr", "path", path), checkXattr("Setxattr", name, value)); err != nil {
		return err
	}
	prep(s, sys.OpSetxattr, 0, addrOf(name), uint32(len(value)), addrOf(value))
	s.OpFlags = flags
	s.Addr3 = addrOf(path)
	return nil
}

// Fgetxattr prepares fgetxattr(2): read attribute name of fd into value
// (len(value) = 0: just report the size): io_uring_prep_fgetxattr(3),
// IORING_OP_FGETXATTR, Linux 5.19. The result is the value's length. The
// kernel reads name and writes value until the CQE.
func Fgetxattr(s *sys.SQE, fd int, name, value []byte) error {
	if err := firstErr(checkFd("Fgetxattr", "fd", fd), checkXattr("Fgetxattr", name, value)); err != nil {
		return err
	}
	prep(s, sys.OpFgetxattr, fd, addrOf(name), uint32(len(value)), addrOf(value))
	return nil
}

// Getxattr prepares getxattr(2): read attribute name of the file at path
// into value: io_uring_prep_getxattr(3), IORING_OP_GETXATTR, Linux 5.19. The
// result is the value's length. The kernel reads path and name and writes
// value until the CQE.
func Getxattr(s *sys.SQE, path, name, value []byte) error {
	if err := firstErr(checkPath("Getxattr", "path", path), checkXattr("Getxattr", name, value)); err != nil {
		return err
	}
	prep(s, sys.OpGetxattr, 0, addrOf(name), uint32(len(value)), addrOf(value))
	s.Addr3 = addrOf(path)
	return nil
}
