use super::{Kind, Lesson};

pub static LESSON: Lesson = Lesson {
    number: 9,
    slug: "texture_zero_copy",
    title: "texture_zero_copy",
    hint: "",
    kind: Kind::OpenCl(&super::l05_local_tiling::TILED),
};
