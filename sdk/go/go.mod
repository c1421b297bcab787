module github.com/engram-memory/engram/sdk/go

go 1.23
