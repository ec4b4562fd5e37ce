package feature

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by every "not supported here" answer;
// errors.Is(err, errors.ErrUnsupported) holds for it too.
var ErrUnsupported = fmt.Errorf("io_uring: %w", errors.ErrUnsupported)

// unsupported returns an error wrapping ErrUnsupported with the reason.
func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// sinceText renders the release that added a feature, or "" when unknown.
func sinceText(since string) string {
	if since == "" {
		return ""
	}
	return " (Linux " + since + ")"
}

// isUnsupported reports whether err wraps ErrUnsupported.
func isUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }
