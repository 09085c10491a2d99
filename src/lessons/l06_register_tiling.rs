use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 6,
    slug: "register_tiling",
    title: "register_tiling",
    hint: "",
    kind: Kind::OpenCl(&super::l05_local_tiling::TILED),
};
