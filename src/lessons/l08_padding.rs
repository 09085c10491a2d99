use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 8,
    slug: "padding",
    title: "padding",
    hint: "",
    kind: Kind::OpenCl(&super::l05_local_tiling::TILED),
};
