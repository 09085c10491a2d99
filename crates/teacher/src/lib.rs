//! The teacher's service of the course: a class graded at once ([`class`]), and the engines
//! classes already use, Gradescope and GitHub Classroom ([`autograde`]). It grades through the
//! course's library (`lab`) exactly as the course's own programs do, and builds nothing the
//! course itself needs: a student never compiles it.
//!
//! Floors, as in the course: [`class`] below [`autograde`]; tests/layout.rs checks them and
//! that nothing here reaches past the course library's public API.

pub mod class;

pub mod autograde;
