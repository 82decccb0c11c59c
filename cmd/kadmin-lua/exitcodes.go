package main

import (
	"errors"
	"fmt"

	"github.com/kadmin-lua/kadmin-lua/engine"
	"github.com/kadmin-lua/kadmin-lua/luaapi"
)

// Exit codes: a cron job or CI step can trust them. docs/cli.md lists them;
// keep the two in step.
const (
	// ExitOK: the command (and every kafka.check) succeeded.
	ExitOK = 0
	// ExitScript: the script raised an error (error(...), kafka.fail, a bad
	// argument to a kafka function, a script file that cannot be read), was
	// stopped by --max-memory (code MEMORY), or kadmin-lua hit an internal
	// error (a panic, caught in run). The Go runtime's own fatal errors exit
	// 2 and cannot be caught; --max-memory keeps the likely one, out of
	// memory, from happening.
	ExitScript = 1
	// ExitUsage: bad command line (unknown flag or command, wrong arguments,
	// bad config file or profile, unsupported client.properties setting) or
	// a Lua syntax error (the message says file:line:column).
	ExitUsage = 2
	// ExitKafka: Kafka said no or could not be reached: a Kafka error code
	// (TOPIC_ALREADY_EXISTS, POLICY_VIOLATION...), connection failure,
	// timeout, authentication failure.
	ExitKafka = 3
	// ExitCheck: the run completed but at least one kafka.check failed.
	ExitCheck = 4
	// ExitInterrupted: SIGINT (Ctrl-C) stopped the run (128 + SIGINT).
	ExitInterrupted = 130
	// ExitTerminated: SIGTERM stopped the run (128 + SIGTERM).
	ExitTerminated = 143
)

// `kadmin-lua plan --exit-code` uses terraform's detailed exit codes
// instead, so CI can gate on drift: 0 nothing would change, 2 something
// would, 1 the plan failed (a bad spec, a policy violation, Kafka).
const (
	ExitPlanNoChanges = 0
	ExitPlanError     = 1
	ExitPlanChanges   = 2
)

// exitError carries an exit code with the message to print. An empty
// message prints nothing.
type exitError struct {
	code int
	err  error
	hint bool // a command-line mistake: point at --help
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// usageErr marks a command-line mistake (exit 2, with a pointer to --help).
func usageErr(err error) error { return &exitError{code: ExitUsage, err: err, hint: true} }

func exitf(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

// exitCode maps an error from a command to the process exit code. Errors
// the commands did not classify come from cobra's own parsing (unknown
// command, unknown flag, bad flag value, wrong number of arguments): usage.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	var re *luaapi.RunError
	if errors.As(err, &re) {
		switch re.Kind {
		case luaapi.KindSyntax:
			return ExitUsage
		case luaapi.KindKafka:
			return ExitKafka
		case luaapi.KindCanceled:
			return ExitInterrupted
		}
		return ExitScript
	}
	var e *engine.Error
	if errors.As(err, &e) {
		switch e.Code {
		case engine.CodeInvalidArgument, engine.CodeNotFound:
			return ExitUsage
		case engine.CodeCanceled:
			return ExitInterrupted
		case engine.CodeUnknown, engine.CodeStateLocked, engine.CodeStateFile:
			return ExitScript
		}
		return ExitKafka
	}
	return ExitUsage
}

// severity ranks exit codes for a status made of several runs: a fleet's
// (one run per cluster) is the worst of its runs. From best to worst: 0 ok;
// 4 a check failed (the cluster answered, and is unhealthy); 1 the script
// failed; 3 Kafka failed (unreachable, refused: the cluster could not even
// be asked); 2 usage (the command or a profile is wrong, and every run
// will fail the same way); 130 and 143, the process was stopped. A code
// not listed here ranks worst of all.
var severity = []int{ExitOK, ExitCheck, ExitScript, ExitKafka, ExitUsage, ExitInterrupted, ExitTerminated}

// worseExit returns whichever of a and b is worse (severity).
func worseExit(a, b int) int {
	rank := func(code int) int {
		for i, c := range severity {
			if c == code {
				return i
			}
		}
		return len(severity)
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}
