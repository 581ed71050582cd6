package codemode

import "sort"

func sortStrings(s []string) { sort.Strings(s) }
