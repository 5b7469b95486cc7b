package kgmem

// Normalize returns a copy of s in the form a memory keeps it:
// SingleValued sorted and without duplicates, vocabulary entries without
// phrases dropped, empty parts nil, so that two schemas that declare the
// same are equal (reflect.DeepEqual). An empty, blank or invalid type or a
// phrase that is not valid UTF-8 returns an error wrapping
// ErrInvalidArgument. Backends that keep a memory's schema themselves,
// such as package pgraph, store and compare schemas in this form, as
// OpenMemory and Memory.SetSchema do.
func (s Schema) Normalize() (Schema, error) { return s.normalized() }
