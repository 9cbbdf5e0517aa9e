<?php

declare(strict_types=1);

namespace Textkit\Tests;

use PHPUnit\Framework\TestCase;
use Textkit\Slugger;

final class SluggerTest extends TestCase
{
    public function testSlugifyWrong(): void
    {
        $this->assertSame('Hello_World', (new Slugger())->slugify('Hello World'));
    }
}
