// Package textrule holds kgmem's text rules, for package kgmem and the other
// packages of this repository (package pgraph) alike: the folding that
// keyword search and linking compare text in, the tokenizer of content
// search, the units and match keys entity linking looks names up by, the
// light English stemmer and the built-in lexicon that question analysis
// reads, the tag and keyword rules, and the forms Ingest and Merge compare
// names, aliases and types in (surface.go). A backend that applies them finds,
// links and stores exactly what InMemoryGraph does.
//
// Every function is pure and safe for concurrent use; the tables the rules
// read (stop words, irregular forms, suffixes) are read-only. The package
// has no initialisation code beyond those tables and depends on no other
// package of the repository except internal/quote.
package textrule
