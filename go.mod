module github.com/kadmin-lua/kadmin-lua

go 1.26.8

replace github.com/yuin/gopher-lua => ./third_party/gopher-lua
