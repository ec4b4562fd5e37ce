//go:build !linux

package feature

import (
	"runtime"

	"github.com/pure-uring/uring/sys"
)

// There is no io_uring outside Linux: every probe says so.

func no() error { return unsupported("io_uring", "", "no io_uring on "+runtime.GOOS, nil) }

func Available() error                   { return no() }
func Explain(err error) error            { return err }
func IOUringDisabled() (int, error)      { return -1, no() }
func KernelRelease() string              { return "" }
func Op(op sys.Op) error                 { return no() }
func SetupFlag(f sys.SetupFlags) error   { return no() }
func EnterFlag(f sys.EnterFlags) error   { return no() }
func RegisterOp(op sys.RegisterOp) error { return no() }
func Features() (sys.Features, error)    { return 0, no() }
func MaxEntries() (Limits, error)        { return Limits{}, no() }
func Query() (sys.QueryOpcode, error)    { return sys.QueryOpcode{}, no() }
func PolledIO() ([]BlockDevice, error)   { return nil, no() }
func Cap(c Capability) error             { return no() }
func Feature(f sys.Features) error       { return no() }
