// The simulator's stand-in for B's image, put before lesson 09's kernel only where the
// sanitizer runs it. Oclgrind counts every value a real image gives as never initialised, and
// lets a read outside the image pass whatever the sampler says; here B's pixels lie in a
// buffer read by functions with the image built-ins' names, so the sanitizer follows every
// value and sees a read outside the image that the sampler leaves undefined as a read outside
// the buffer.
//
// The buffer: pixel 0 holds the image's width and height (as ints), then the image's rows of
// `width` pixels. The host's text replaces `image2d_t` by `lab_image` and `sampler_t` by
// `lab_smp_t` (words of the same length, so every column stays where it was) and blanks the
// read-only qualifiers.
typedef __global const float4 *lab_image;
typedef uint lab_smp_t;

int __attribute__((overloadable)) get_image_width(lab_image img) { return as_int(img[0].x); }
int __attribute__((overloadable)) get_image_height(lab_image img) { return as_int(img[0].y); }
int2 __attribute__((overloadable)) get_image_dim(lab_image img)
{
    return (int2)(get_image_width(img), get_image_height(img));
}
int __attribute__((overloadable)) get_image_channel_data_type(lab_image img) { return CLK_FLOAT; }
int __attribute__((overloadable)) get_image_channel_order(lab_image img) { return CLK_RGBA; }

// Pixel (x, y) as the sampler's addressing mode gives it. Outside the image: zeros (CLAMP),
// the nearest edge (CLAMP_TO_EDGE); with no addressing mode the read is undefined, and is made
// here past the buffer's end, where the simulator reports it.
float4 lab_pixel(lab_image img, lab_smp_t s, int x, int y)
{
    int w = get_image_width(img), h = get_image_height(img);
    if (x >= 0 && x < w && y >= 0 && y < h)
        return img[1 + y * w + x];
    switch (s & 0xE) {
    case CLK_ADDRESS_CLAMP:
        return (float4)(0.0f);
    case CLK_ADDRESS_CLAMP_TO_EDGE:
        return img[1 + clamp(y, 0, h - 1) * w + clamp(x, 0, w - 1)];
    default:
        return img[1 + w * h + (x < 0 ? -x : x) + (y < 0 ? -y : y)];
    }
}

// A normalised coordinate u of an image `size` pixels long, in pixels, after REPEAT or
// MIRRORED_REPEAT (which are defined only for normalised coordinates).
float lab_unnormalise(lab_smp_t s, float u, int size)
{
    if ((s & 0xE) == CLK_ADDRESS_REPEAT)
        return (u - floor(u)) * size;
    if ((s & 0xE) == CLK_ADDRESS_MIRRORED_REPEAT) {
        float m = fabs(u - 2.0f * rint(0.5f * u));
        return fmin(m * size, (float)size - 0.5f);
    }
    return u * size;
}

float4 __attribute__((overloadable)) read_imagef(lab_image img, lab_smp_t s, float2 at)
{
    float2 p = at;
    if (s & CLK_NORMALIZED_COORDS_TRUE)
        p = (float2)(lab_unnormalise(s, at.x, get_image_width(img)),
                     lab_unnormalise(s, at.y, get_image_height(img)));
    if (s & CLK_FILTER_LINEAR) {
        float2 q = p - 0.5f, f = q - floor(q);
        int x = (int)floor(q.x), y = (int)floor(q.y);
        return (1.0f - f.x) * (1.0f - f.y) * lab_pixel(img, s, x, y)
            + f.x * (1.0f - f.y) * lab_pixel(img, s, x + 1, y)
            + (1.0f - f.x) * f.y * lab_pixel(img, s, x, y + 1)
            + f.x * f.y * lab_pixel(img, s, x + 1, y + 1);
    }
    return lab_pixel(img, s, (int)floor(p.x), (int)floor(p.y));
}

float4 __attribute__((overloadable)) read_imagef(lab_image img, lab_smp_t s, int2 at)
{
    return lab_pixel(img, s, at.x, at.y);
}

// Without a sampler: integer coordinates, undefined outside the image.
float4 __attribute__((overloadable)) read_imagef(lab_image img, int2 at)
{
    return lab_pixel(img, CLK_ADDRESS_NONE, at.x, at.y);
}
