package engine

import (
	"github.com/kadmin-lua/kadmin-lua/engine/alerts"
	"github.com/kadmin-lua/kadmin-lua/engine/auditlog"
	"github.com/kadmin-lua/kadmin-lua/engine/login"
	"github.com/kadmin-lua/kadmin-lua/engine/redact"
	"github.com/kadmin-lua/kadmin-lua/engine/state"
	"github.com/kadmin-lua/kadmin-lua/engine/verdicts"
)

// Names from before the engine was split by concern (issue 29), kept so
// that code written against them (branches in flight when the split
// landed) still compiles. Each is the name in the package that holds it
// now; new code imports that package (docs/architecture.md). Only the
// packages below the core can be named here: desired state and undo import
// the core, so their old names (engine.Spec, engine.Plan, engine.Change,
// Client.PlanSpec, Client.Undo, ...) are desired.* and undo.* only.

// The audit log: engine/auditlog.
type (
	AuditLog        = auditlog.Log
	AuditLogOptions = auditlog.Options
	AuditRecord     = auditlog.Record
	AuditedChange   = auditlog.Change
)

const (
	AuditIntent  = auditlog.TypeIntent
	AuditOutcome = auditlog.TypeOutcome
)

func OpenAuditLog(path string) (*auditlog.Log, error) { return auditlog.Open(path) }

func OpenAuditLogWith(path string, o auditlog.Options) (*auditlog.Log, error) {
	return auditlog.OpenWith(path, o)
}

var (
	ReadAuditFile    = auditlog.ReadFile
	ReadAuditLog     = auditlog.Read
	ReadAuditLogWith = auditlog.ReadWith
)

// Secrets: engine/redact.
var (
	IsSecretKey = redact.IsSecretKey
	Redact      = redact.Value
)

// Logins: engine/login.
type (
	AWSConfig      = login.AWSConfig
	KerberosConfig = login.KerberosConfig
	KeyStore       = login.KeyStore
	OAuthConfig    = login.OAuthConfig
	SASLConfig     = login.SASLConfig
	TLSConfig      = login.TLSConfig
)

var (
	SASLMechanisms      = login.SASLMechanisms
	StoreTypes          = login.StoreTypes
	TokenCommandBaseEnv = login.TokenCommandBaseEnv
)

// Lag verdicts: engine/verdicts.
type (
	EvaluateOptions = verdicts.EvaluateOptions
	LagSample       = verdicts.LagSample
)

var EvaluateLag = verdicts.EvaluateLag

// The state store: engine/state.
type (
	StateOptions = state.Options
	StateStore   = state.Store
)

const (
	DefaultStateExpireAfter = state.DefaultExpireAfter
	DefaultStateLockWait    = state.DefaultLockWait
	DefaultStateMaxEntries  = state.DefaultMaxEntries
	DefaultStateMaxFile     = state.DefaultMaxFile
	DefaultStateSamples     = state.DefaultSamples
	DefaultStateWindow      = state.DefaultWindow
)

var (
	NewStateStore = state.New
	OpenStateFile = state.OpenFile
)

// Notifications: engine/alerts.
type (
	Alert         = alerts.Alert
	AlertOutcome  = alerts.Outcome
	Notice        = alerts.Notice
	NoticeLedger  = alerts.Ledger
	NotifyRequest = alerts.Request
	NotifyResult  = alerts.Result
)

const (
	CodeNotifyFailed   = alerts.CodeNotifyFailed
	MaxAfterRuns       = alerts.MaxAfterRuns
	MaxNotifyAttempts  = alerts.MaxAttempts
	MaxNotifyTimeout   = alerts.MaxTimeout
	NotifyAlertmanager = alerts.FormatAlertmanager
	NotifyJSON         = alerts.FormatJSON
	NotifySlack        = alerts.FormatSlack
	ReasonOpened       = alerts.ReasonOpened
	ReasonRepeat       = alerts.ReasonRepeat
	ReasonResolved     = alerts.ReasonResolved
)

var (
	CheckAlert      = alerts.CheckAlert
	CheckWebhookURL = alerts.CheckWebhookURL
	NewMemoryLedger = alerts.NewMemoryLedger
	NoticeKey       = alerts.NoticeKey
	NotifyFormats   = alerts.Formats
	NotifyStatuses  = alerts.Statuses
)
