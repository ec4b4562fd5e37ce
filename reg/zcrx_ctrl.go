//go:build linux

package reg

import (
	"github.com/pure-uring/uring/sys"
)

// IORING_REGISTER_ZCRX_CTRL (io_uring_register_zcrx_ctrl(3), liburing
// 2.15, Linux 6.19): operations on a zero-copy receive instance of the
// ring, named by its id (ZcrxIfq.ID). A ring without that instance answers
// ENXIO; a kernel without the operation, EOPNOTSUPP; one without the
// opcode, EINVAL, which reg reports as an *uring.UnsupportedError naming
// 6.19.

// zcrxCtrl is the argument of one operation: the instance and the
// operation, the rest zero (the operation's own argument, 48 bytes, is
// all reserved for the two here).
func zcrxCtrl(id, op uint32) sys.ZcrxCtrl { return sys.ZcrxCtrl{ZcrxID: id, Op: op} }

// ZcrxFlushRQ makes the kernel take back, now, the buffers the application
// put on the refill ring of instance id (ZCRX_CTRL_FLUSH_RQ), instead of
// when the NIC next needs buffers.
func ZcrxFlushRQ(t Target, id uint32) error {
	c := zcrxCtrl(id, sys.ZcrxCtrlFlushRQ)
	_, err := register(t, sys.RegisterZcrxCtrl, &c, 0)
	return err
}

// ZcrxExport returns a new fd (close-on-exec) for instance id
// (ZCRX_CTRL_EXPORT) that another ring imports with sys.ZcrxRegImport to
// share the instance's receive queue and area. The caller closes it.
func ZcrxExport(t Target, id uint32) (int, error) {
	c := zcrxCtrl(id, sys.ZcrxCtrlExport)
	fd, err := register(t, sys.RegisterZcrxCtrl, &c, 0)
	if err != nil {
		return -1, err
	}
	return fd, nil
}
