// Package question reads a question's words for kgmem's graph channel,
// without a model: it cuts the question into units (words, CJK characters)
// with their stems, finds the built-in lexicon's entries in it
// (textrule.Concepts), its answer-type cues (who, which films, 什么项目) and
// whether it asks for something shared, matches its words against the name
// of a relation type or an entity type — by spelling, by stem, by lexicon
// concept and by the phrases of a compiled vocabulary (Vocab) — and reads
// its time words (periods, orders relative to a time or a fact, history and
// "now" wording) into time cues.
//
// Everything here reads only text, the lexicon and a compiled vocabulary:
// the graph walk that uses the analysis, and the look-up of the facts an
// order names, are package kgmem's. Every function is safe for concurrent
// use; the lexicon index and the word tables are read-only after package
// initialisation.
package question
