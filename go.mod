module github.com/kadmin-lua/kadmin-lua

go 1.26.8

replace github.com/yuin/gopher-lua => ./third_party/gopher-lua

require (
	github.com/stretchr/testify v1.12.1
	github.com/twmb/franz-go v1.22.3
	github.com/twmb/franz-go/pkg/kadm v1.20.0
	github.com/twmb/franz-go/pkg/kmsg v1.15.1
)

require (
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/pierrec/lz4/v4 v4.1.33 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
