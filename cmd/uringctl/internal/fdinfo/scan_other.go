//go:build !linux

package fdinfo

// Scan needs Linux's /proc; elsewhere it returns ErrUnsupported.
func Scan(pids []int, opt ScanOptions) (*Result, error) { return nil, ErrUnsupported }
