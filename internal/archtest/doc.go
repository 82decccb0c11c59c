// Package archtest holds the test that keeps the import graph as
// docs/architecture.md draws it: TestImportsFollowTheRules reads the rule
// table there and checks every package of the module against it.
package archtest
