//go:build !linux

package fdio

import (
	"errors"
	"os"
)

var errNoSys = errors.New("fdio: not supported on this system")

func Eventfd(name string) (*os.File, int, error) {
	return nil, -1, errNoSys
}

func RecvNonblock(fd int, b []byte) (int, error) { return 0, errNoSys }

func SendNonblock(fd int, b []byte) (int, error) { return 0, errNoSys }

func PreadNowait(fd int, b []byte, off int64) (int, error) { return 0, errNoSys }

func PreadCached(fd int, b []byte, off int64) (int, error) { return 0, errNoSys }

func RecvFlags(fd int, b []byte, flags int) (int, error) { return 0, errNoSys }

func SendFlags(fd int, b []byte, flags int) (int, error) { return 0, errNoSys }

func PwriteNowait(fd int, b []byte, off int64) (int, error) { return 0, errNoSys }
